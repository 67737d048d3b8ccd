// Preloaded with `node --require` so a test server listens on 127.0.0.1 only: server-everything
// binds every interface unless told otherwise, and the MCP specification asks local servers to bind
// to localhost only (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports,
// "Security Warning").
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const rest = args.slice(1).filter((a) => typeof a === "function");
    return listen.call(this, { port, host: "127.0.0.1" }, ...rest);
  }
  if (args[0] && typeof args[0] === "object" && !("path" in args[0])) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
