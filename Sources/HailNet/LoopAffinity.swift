/// The network loop a task answers a request on, for work it starts that should stay there.
///
/// HailNet binds `executor` around each HTTP handler it runs on a loop. An unstructured task does not inherit its
/// creator's executor preference (only structured children do), so a handler that starts one (a deadline race) asks
/// for this loop by name; without it the task would go to the cooperative pool and back, two thread switches and a
/// wake-up for work that may never suspend.
public enum LoopAffinity {
    /// The task executor of the loop running the current request's handler; nil outside one.
    @TaskLocal public static var executor: (any TaskExecutor)?

    /// `executor`, or the cooperative pool's when there is none: what to prefer for a task that continues the
    /// current request's work.
    public static var preferred: any TaskExecutor { executor ?? globalConcurrentExecutor }
}
