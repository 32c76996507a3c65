import Foundation

// The `hail` command line: a thin front end over the library modules.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: hail <command> [options]

    commands:
      demo      walk a whole trip through Hail's core: trip rules, the rider's glide, pin freshness and
                ETA smoothing through a tunnel (the server and the live city map arrive with later releases)
      help      show this text

    Run `hail <command> --help` for a command's options.
    """

switch arguments.first {
case "demo":
    if arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
        print(CoreWalkthrough.usage)
    } else if let unknown = arguments.dropFirst().first {
        FileHandle.standardError.write(Data("hail demo: unknown option '\(unknown)'\n\(CoreWalkthrough.usage)\n".utf8))
        exit(64)
    } else {
        CoreWalkthrough().run()
    }
case nil, "help", "--help", "-h":
    print(usage)
case let other?:
    FileHandle.standardError.write(Data("hail: unknown command '\(other)'\n\n\(usage)\n".utf8))
    exit(64)
}
