export { createServer, type ServerOptions, type TargetServer } from "./server.ts";
