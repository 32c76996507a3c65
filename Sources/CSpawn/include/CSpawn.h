// Starting a child process with a clean signal state that dies with its parent, imported only by HailProcess.
// It is C because what must happen between fork and exec (prctl is variadic, and nothing but async-signal-safe
// calls may run there) cannot be written in Swift.
#ifndef CSPAWN_H
#define CSPAWN_H

#include <sys/types.h>

/// Forks and executes `path` with `argv` and `envp` (both NULL-terminated). In the child, before exec: every
/// signal unblocked and back to its default action, `death_signal` (0 for none) delivered when the thread that
/// called this exits (Linux; the process's death ends that thread too), descriptors `in_fd`, `out_fd`, `err_fd`
/// (-1: /dev/null) as 0, 1, 2 and every other descriptor closed, and on Linux, when `cpu_count` is over 0, only
/// the processors in `cpus` to run on. Returns 0 and sets `*pid`, or an errno value (from fork, or from
/// sched_setaffinity or exec in the child: the program did not start).
int cspawn_start(pid_t *pid, const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd,
                 int err_fd, int death_signal, const int *cpus, int cpu_count);

#endif
