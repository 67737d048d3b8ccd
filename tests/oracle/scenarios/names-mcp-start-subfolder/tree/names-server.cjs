// A minimal MCP server over stdio (no dependencies): serves the tools named on its command line.
// Usage: node names-server.cjs NAME... ; a name "!NAME" gets _meta {"anthropic/alwaysLoad": true}.
const names = process.argv.slice(2);
let buf = '';
const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i).trim();
    buf = buf.slice(i + 1);
    if (!line) continue;
    const msg = JSON.parse(line);
    if (msg.id === undefined) continue;
    if (msg.method === 'initialize') {
      send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} }, serverInfo: { name: 'names', version: '1.0.0' } } });
    } else if (msg.method === 'tools/list') {
      send({ jsonrpc: '2.0', id: msg.id, result: { tools: names.map((n) => {
        const always = n.startsWith('!');
        const name = always ? n.slice(1) : n;
        return { name, description: `Tool ${name}.`, inputSchema: { type: 'object', properties: {} },
                 ...(always ? { _meta: { 'anthropic/alwaysLoad': true } } : {}) };
      }) } });
    } else if (msg.method === 'ping') {
      send({ jsonrpc: '2.0', id: msg.id, result: {} });
    } else {
      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
    }
  }
});
