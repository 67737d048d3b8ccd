#!/usr/bin/env node
// A small stdio MCP server that misbehaves on request, for the runtime's fault tests. It speaks
// JSON-RPC lines by hand (no SDK), so it can send what a real SDK never would.
//
//   node faulty.cjs [--tools N] [--junk] [--bad-schema] [--huge-description MB]
//                   [--broken-list] [--flood N] [--flood-rate PER_SECOND]
//
// --tools N               offer N plain tools (default 3)
// --junk                  write non-JSON lines and a cut-off JSON object around every answer
// --bad-schema            tools/list answers with tools whose inputSchema is not an object
// --huge-description MB   one more tool whose description is MB megabytes long
// --broken-list           tools/list answers with a line that is not JSON
// --flood N               after `initialized`, send N notifications/tools/list_changed
// --flood-rate R          ... at R per second (default 1000)
//
// Tools: `echo {text}` answers the text; `big {chars}` answers that many characters;
// `stall` never answers; `add_tool {name}` / `remove_tool {name}` change the list and send
// tools/list_changed; `flood {count}` sends that many list_changed at the rate.
'use strict';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? Number(args[i + 1]) : fallback;
};

const tools = new Map();
for (let i = 0; i < value('--tools', 3); i++) {
  tools.set(`tool_${i}`, { name: `tool_${i}`, description: `Plain tool number ${i}.`, inputSchema: { type: 'object' } });
}
tools.set('echo', {
  name: 'echo',
  description: 'Answers the text it is given.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
});
if (flag('--huge-description')) {
  const bytes = Math.round(value('--huge-description', 50) * 1024 * 1024);
  tools.set('huge', { name: 'huge', description: 'x'.repeat(bytes), inputSchema: { type: 'object' } });
}
const rate = value('--flood-rate', 1000);

function write(message) {
  if (flag('--junk')) {
    process.stdout.write('this line is not JSON\n{"jsonrpc": "2.0", "id": \n[1, 2\n');
  }
  process.stdout.write(JSON.stringify(message) + '\n');
}

function flood(count) {
  let sent = 0;
  const every = 1000 / rate;
  const started = Date.now();
  const tick = () => {
    // Catch up with the wall clock: timers fire at best every millisecond.
    const due = Math.min(count, Math.floor((Date.now() - started) / every) + 1);
    while (sent < due) {
      write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      sent++;
    }
    if (sent < count) setTimeout(tick, 1);
  };
  tick();
}

function answer(request) {
  const { id, method, params } = request;
  const reply = (result) => write({ jsonrpc: '2.0', id, result });
  const fail = (code, message) => write({ jsonrpc: '2.0', id, error: { code, message } });
  switch (method) {
    case 'initialize':
      return reply({
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'faulty', version: '1.0.0' },
        instructions: 'A server for fault tests.',
      });
    case 'ping':
      return reply({});
    case 'tools/list':
      if (flag('--broken-list')) {
        process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":{"tools":[{"name":\n');
        return;
      }
      if (flag('--bad-schema')) {
        return reply({
          tools: [
            { name: 'stringly', description: 'Its schema is a string.', inputSchema: 'object' },
            { description: 'It has no name.', inputSchema: { type: 'object' } },
          ],
        });
      }
      return reply({ tools: [...tools.values()] });
    case 'tools/call': {
      const name = params && params.name;
      const input = (params && params.arguments) || {};
      if (name === 'echo') return reply({ content: [{ type: 'text', text: String(input.text) }] });
      if (name === 'big') return reply({ content: [{ type: 'text', text: 'y'.repeat(Number(input.chars) || 0) }] });
      if (name === 'stall') return;
      if (name === 'add_tool' || name === 'remove_tool') {
        if (name === 'add_tool') tools.set(input.name, { name: input.name, description: 'Added at run time.', inputSchema: { type: 'object' } });
        else tools.delete(input.name);
        reply({ content: [{ type: 'text', text: 'ok' }] });
        return write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      }
      if (name === 'flood') {
        reply({ content: [{ type: 'text', text: 'flooding' }] });
        return flood(Number(input.count) || 1000);
      }
      return fail(-32602, `unknown tool ${name}`);
    }
    default:
      if (id !== undefined) fail(-32601, `method not found: ${method}`);
  }
}

tools.set('big', { name: 'big', description: 'Answers many characters.', inputSchema: { type: 'object' } });
tools.set('stall', { name: 'stall', description: 'Never answers.', inputSchema: { type: 'object' } });
tools.set('add_tool', { name: 'add_tool', description: 'Adds a tool.', inputSchema: { type: 'object' } });
tools.set('remove_tool', { name: 'remove_tool', description: 'Removes a tool.', inputSchema: { type: 'object' } });
tools.set('flood', { name: 'flood', description: 'Sends list_changed notifications.', inputSchema: { type: 'object' } });

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (!line) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message.method === 'notifications/initialized' && flag('--flood')) flood(value('--flood', 1000));
    if (message.method && !message.method.startsWith('notifications/')) answer(message);
  }
});
process.stdin.on('end', () => process.exit(0));
