/// The least a Redis ACL user must be allowed for Hail to run on it: the commands the scaled backends send (their
/// Lua scripts' included, which Redis checks as well), keys under `<prefix>hail:` and the bus's channels only.
/// docs/DEPLOY.md prints the rules for the default prefix; the tests run a whole ride on a user given exactly these.
public enum RedisACL {
    /// The commands, lowercase, as ACL rules name them (`script|load`: that subcommand alone).
    public static let commands = [
        "ping", "select", "time", "multi", "exec", "eval", "evalsha", "script|load", "get", "set", "del", "incr",
        "pexpire", "pttl", "hget", "hset", "hdel", "hexists", "hgetall", "hmget", "zadd", "zrem", "zscore", "zmscore",
        "zrangebyscore", "geoadd", "geosearch", "publish", "subscribe", "unsubscribe",
    ]

    /// The ACL rules after `user <name> on >password` for a deployment whose `--redis-prefix` is `prefix`.
    public static func rules(prefix: String = "") -> [String] {
        ["resetkeys", "~\(prefix)hail:*", "resetchannels", "&\(prefix)trip:*", "&\(prefix)driver:*", "-@all"]
            + commands.map { "+" + $0 }
    }
}
