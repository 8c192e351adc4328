// Scheduling priority of the calling thread (ADR 0180). Background threads (the segment builder, which
// also runs merges) lower their own priority so that, on a machine whose cores are all busy, the
// threads that answer searches preempt them. On Linux, setpriority(2) with a thread id changes that
// thread only: a thread finds its id through /proc/thread-self (`PID/task/TID`). Elsewhere (no
// /proc/thread-self: macOS, Windows) nothing is changed, since setting the process id would lower the
// whole server.
import { readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** What lowering the priority did. */
export type ThreadPriorityResult = { applied: true; tid: number; nice: number } | { applied: false; reason: string };

/** The calling thread's id (Linux), or null where /proc/thread-self is not available. */
export function currentThreadId(): number | null {
  try {
    const m = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The calling thread's nice value from /proc/thread-self/stat (Linux), or null. */
export function currentThreadNice(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // fields after the command name (which may hold spaces): state is field 3, nice field 19
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return null;
  }
}

/**
 * Sets the calling thread's nice value to `nice` (0-19; 0 leaves it alone). Never throws: where the
 * platform cannot address one thread, or the call is refused, it reports why and changes nothing.
 */
export function lowerThreadPriority(nice: number): ThreadPriorityResult {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) return { applied: false, reason: `nice must be an integer 0-19, got ${nice}` };
  if (nice === 0) return { applied: false, reason: 'nice 0: priority left as is' };
  const tid = currentThreadId();
  if (tid === null) return { applied: false, reason: 'this platform has no per-thread priority (/proc/thread-self)' };
  try {
    setPriority(tid, nice);
    return { applied: true, tid, nice };
  } catch (e) {
    return { applied: false, reason: (e as Error).message };
  }
}
