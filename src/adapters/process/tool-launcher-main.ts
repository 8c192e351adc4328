// Entry point of the tool launcher process (ADR 0361; forked by tool-launcher.ts): runs each requested tool
// with spawnTool and sends back its result; kills a run on request; when the service goes away (channel
// closed), kills every tool it started and exits.
import type { LauncherReply, LauncherRequest } from './tool-launcher.js';
import { spawnTool } from './spawn-tool.js';

const kills = new Map<number, Set<() => void>>();
process.send!({ t: 'hello', pid: process.pid } satisfies LauncherReply, () => undefined);

process.on('message', (m: LauncherRequest) => {
  if (m.t === 'kill') {
    for (const k of kills.get(m.id) ?? []) k();
    return;
  }
  const running = new Set<() => void>();
  kills.set(m.id, running);
  void spawnTool(m.spec, undefined, running, (pid) => process.send!({ t: 'pid', id: m.id, pid } satisfies LauncherReply, () => undefined)).then((r) => {
    kills.delete(m.id);
    // Small outputs sit in Buffer's shared pool: send only their own bytes, not the pool.
    const result = r.stdout.byteLength === r.stdout.buffer.byteLength ? r : { ...r, stdout: r.stdout.slice() };
    if (process.connected) process.send!({ t: 'done', id: m.id, result } satisfies LauncherReply, () => undefined);
  });
});

process.on('disconnect', () => {
  for (const running of kills.values()) for (const k of running) k();
  process.exit(0);
});
