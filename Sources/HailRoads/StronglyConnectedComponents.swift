/// Strongly connected components of a directed graph in CSR form (iterative Kosaraju, no recursion, so a
/// long road cannot overflow the stack).
enum StronglyConnectedComponents {
    /// The component of each node, numbered by size: 0 is the largest (ties broken by lowest node).
    static func components(nodeCount: Int, edgeStart: [Int32], targets: [Int32]) -> [Int32] {
        // Pass 1: nodes in order of finishing a depth-first search on the graph.
        var order: [Int32] = []
        order.reserveCapacity(nodeCount)
        var visited = [Bool](repeating: false, count: nodeCount)
        var stack: [(node: Int32, next: Int32)] = []
        for root in 0..<nodeCount where !visited[root] {
            visited[root] = true
            stack.append((Int32(root), edgeStart[root]))
            while let top = stack.last {
                let node = Int(top.node)
                if top.next < edgeStart[node + 1] {
                    stack[stack.count - 1].next += 1
                    let target = Int(targets[Int(top.next)])
                    if !visited[target] {
                        visited[target] = true
                        stack.append((Int32(target), edgeStart[target]))
                    }
                } else {
                    order.append(top.node)
                    stack.removeLast()
                }
            }
        }
        // Pass 2: on the reversed graph, in reverse finishing order, each search is one component.
        var reverseStart = [Int32](repeating: 0, count: nodeCount + 1)
        for target in targets { reverseStart[Int(target) + 1] += 1 }
        for index in 0..<nodeCount { reverseStart[index + 1] += reverseStart[index] }
        var fill = reverseStart
        var sources = [Int32](repeating: 0, count: targets.count)
        for node in 0..<nodeCount {
            for slot in Int(edgeStart[node])..<Int(edgeStart[node + 1]) {
                let target = Int(targets[slot])
                sources[Int(fill[target])] = Int32(node)
                fill[target] += 1
            }
        }
        var component = [Int32](repeating: -1, count: nodeCount)
        var sizes: [Int] = []
        var firstNode: [Int32] = []
        var pending: [Int32] = []
        for root in order.reversed() where component[Int(root)] < 0 {
            let id = Int32(sizes.count)
            sizes.append(0)
            firstNode.append(root)
            component[Int(root)] = id
            pending.append(root)
            while let node = pending.popLast() {
                sizes[Int(id)] += 1
                firstNode[Int(id)] = min(firstNode[Int(id)], node)
                for slot in Int(reverseStart[Int(node)])..<Int(reverseStart[Int(node) + 1]) {
                    let source = Int(sources[slot])
                    if component[source] < 0 {
                        component[source] = id
                        pending.append(Int32(source))
                    }
                }
            }
        }
        // Renumber by size so that "component 0" means the main road network whatever the file order.
        let ranked = sizes.indices.sorted { (sizes[$0], -firstNode[$0]) > (sizes[$1], -firstNode[$1]) }
        var rank = [Int32](repeating: 0, count: sizes.count)
        for (position, id) in ranked.enumerated() { rank[id] = Int32(position) }
        return component.map { rank[Int($0)] }
    }
}
