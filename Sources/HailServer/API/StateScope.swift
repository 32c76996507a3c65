/// Who sees a piece of dispatch and ingest state: this process alone, or every node of the deployment.
///
/// The pieces lean on each other (an offer is fenced by its search's lease, a batch's write publishes on the bus
/// and moves the geo index, dispatch reads the ingest state the pipeline writes), so they must all be of one
/// scope: `ServerServices.make` refuses a mix.
public enum StateScope: String, Sendable, Hashable {
    /// In this process's memory: right for one node alone.
    case process
    /// In a store every node shares (Redis).
    case deployment
}
