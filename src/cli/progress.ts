// A one-line progress bar on stderr (redrawn in place on a terminal, a line every few seconds otherwise).

export interface ProgressBar {
  update(done: number, total: number, note?: string): void;
  finish(note?: string): void;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const tty = stream.isTTY === true;
  const started = Date.now();
  let lastPrint = 0;
  let lastLine = '';
  const render = (done: number, total: number, note: string) => {
    const frac = total > 0 ? Math.min(1, done / total) : 0;
    const width = 30;
    const filled = Math.round(frac * width);
    const secs = (Date.now() - started) / 1000;
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(1).padStart(5)}% ${secs.toFixed(1)}s ${note}`;
  };
  return {
    update(done, total, note = '') {
      const now = Date.now();
      if (tty) {
        if (now - lastPrint < 100) return;
        lastLine = render(done, total, note);
        stream.write(`\r${lastLine.padEnd(100)}`);
      } else if (now - lastPrint >= 5000) {
        stream.write(`${render(done, total, note)}\n`);
      } else return;
      lastPrint = now;
    },
    finish(note = '') {
      const line = render(1, 1, note);
      stream.write(tty ? `\r${line.padEnd(Math.max(100, lastLine.length))}\n` : `${line}\n`);
    },
  };
}
