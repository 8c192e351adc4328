// Describes the machine a benchmark ran on (written into every result JSON).
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';

export function machine(): Record<string, unknown> {
  const c = cpus();
  return {
    cpu_model: c[0]?.model ?? 'unknown',
    cores: c.length,
    ram_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${osType()} ${release()}`,
    node: process.version,
    load_average_1m_at_start: Math.round(loadavg()[0]! * 100) / 100,
    date: new Date().toISOString(),
  };
}
