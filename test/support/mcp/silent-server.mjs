// An MCP "server" that reads stdin and never answers initialize (a start-up that hangs).
process.stdin.resume()
setInterval(() => {}, 1 << 30)
