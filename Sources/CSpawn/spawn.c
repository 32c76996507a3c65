#define _GNU_SOURCE
#include "CSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

// Only async-signal-safe calls from here to exec: the parent has many threads and one of them may hold a lock.
static void child(int report, pid_t parent, const char *path, char *const argv[], char *const envp[], int fds[3],
                  int death_signal, const int *cpus, int cpu_count) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction fallback = {0};
    fallback.sa_handler = SIG_DFL;
    for (int number = 1; number < NSIG; number++) {
        if (number != SIGKILL && number != SIGSTOP) sigaction(number, &fallback, NULL);
    }
#if defined(__linux__)
    if (death_signal > 0) {
        prctl(PR_SET_PDEATHSIG, death_signal);
        // The parent may have died between fork and prctl: then no signal will ever come.
        if (getppid() != parent) _exit(127);
    }
    // Before exec, so every thread the program starts inherits the mask (set from the parent after fork, the
    // program could already have started threads under the parent's).
    if (cpu_count > 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int index = 0; index < cpu_count; index++) {
            if (cpus[index] >= 0 && cpus[index] < CPU_SETSIZE) CPU_SET(cpus[index], &set);
        }
        if (sched_setaffinity(0, sizeof set, &set) != 0) goto failed;
    }
#else
    (void)parent;
    (void)death_signal;
    (void)cpus;
    (void)cpu_count;
#endif
    int null = -1;
    for (int target = 0; target < 3; target++) {
        int source = fds[target];
        if (source < 0) {
            if (null < 0) null = open("/dev/null", O_RDWR);
            source = null;
        }
        // dup2 of a descriptor onto itself keeps close-on-exec; clear it explicitly.
        if (source == target) {
            fcntl(target, F_SETFD, 0);
        } else if (dup2(source, target) < 0) {
            goto failed;
        }
    }
    // Nothing else of the parent's (sockets, pipes, databases) reaches the program.
#if defined(__linux__) && defined(SYS_close_range)
    if ((report <= 3 || syscall(SYS_close_range, 3U, (unsigned)report - 1, 0U) == 0) &&
        syscall(SYS_close_range, (unsigned)report + 1, ~0U, 0U) == 0) {
    } else
#endif
    {
        long limit = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < limit; fd++) {
            if (fd != report) close(fd);
        }
    }
    execve(path, argv, envp);
failed:;
    int problem = errno;
    ssize_t ignored = write(report, &problem, sizeof problem);
    (void)ignored;
    _exit(127);
}

int cspawn_start(pid_t *pid, const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd,
                 int err_fd, int death_signal, const int *cpus, int cpu_count) {
    int report[2];
#if defined(__linux__)
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
#else
    if (pipe(report) != 0) return errno;
    fcntl(report[0], F_SETFD, FD_CLOEXEC);
    fcntl(report[1], F_SETFD, FD_CLOEXEC);
#endif
    pid_t parent = getpid();
    int fds[3] = {in_fd, out_fd, err_fd};
    pid_t started = fork();
    if (started < 0) {
        int problem = errno;
        close(report[0]);
        close(report[1]);
        return problem;
    }
    if (started == 0) {
        close(report[0]);
        child(report[1], parent, path, argv, envp, fds, death_signal, cpus, cpu_count);
    }
    close(report[1]);
    int problem = 0;
    ssize_t count;
    do {
        count = read(report[0], &problem, sizeof problem);
    } while (count < 0 && errno == EINTR);
    close(report[0]);
    if (count == sizeof problem) {
        int status;
        while (waitpid(started, &status, 0) < 0 && errno == EINTR) {}
        return problem;
    }
    *pid = started;
    return 0;
}
