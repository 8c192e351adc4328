// Ingest as operators meet it (issue 13): the Stack Exchange data dump as published (Posts.xml with
// Users.xml), one clear line for a missing file, a directory, a PDF or a file that is not JSONL,
// `--help` on every CLI command, and the demo corpus never mixed in unnoticed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import type { CliApp } from '../../src/cli/main.js';
import { runCli } from '../../src/cli/main.js';
import { AppError } from '../../src/domain/errors.js';
import { dumpTags, licenceAt } from '../../src/ingest/formats/stackexchange-dump.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { DEMO_FILES, DEMO_IDS } from '../../src/app.js';
import { DEMO_MARKER_IDS, DemoCorpus, parseDemoIds } from '../../src/ingest/demo-corpus.js';
import { FsSourceFiles } from '../../src/adapters/fs/fs-source-files.js';
import type { SourceFiles } from '../../src/ports/source-files.js';
import { repoRoot } from '../helpers/paths.js';

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'stackexchange-dump', 'ai.stackexchange.com');

/** Runs the CLI against `app` (kept open), capturing stdout and stderr. */
async function cli(app: TestApp | null, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const write = process.stdout.write.bind(process.stdout);
  const errWrite = process.stderr.write.bind(process.stderr);
  let stdout = '';
  let stderr = '';
  // Strings are the CLI's; anything else (the test runner's own binary reports) passes through.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (typeof chunk === 'string' ? ((stdout += chunk), true) : write(chunk, ...rest))) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  try {
    const code = await runCli(args, {
      loadConfig: () => {
        if (!app) throw new Error('the CLI opened no app for --help');
        return app.config;
      },
      openApp: async () => {
        if (!app) throw new Error('the CLI opened no app for --help');
        return Object.assign(Object.create(app) as CliApp, { close: async () => {} });
      },
      serve: async () => {
        throw new Error('not here');
      },
    });
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = write;
    process.stderr.write = errWrite;
  }
}

test('Stack Exchange licences by date (stackoverflow.com/help/licensing) and both tag spellings', () => {
  assert.equal(licenceAt(Date.UTC(2011, 3, 7, 23, 59, 59) / 1000), 'CC BY-SA 2.5');
  assert.equal(licenceAt(Date.UTC(2011, 3, 8) / 1000), 'CC BY-SA 3.0');
  assert.equal(licenceAt(Date.UTC(2018, 4, 1, 23, 59, 59) / 1000), 'CC BY-SA 3.0');
  assert.equal(licenceAt(Date.UTC(2018, 4, 2) / 1000), 'CC BY-SA 4.0');
  assert.deepEqual(dumpTags('<neural-networks><backpropagation>'), ['neural-networks', 'backpropagation']);
  assert.deepEqual(dumpTags('|transformers|attention|'), ['transformers', 'attention']);
  assert.deepEqual(dumpTags(undefined), []);
});

describe('ingest as operators meet it', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp();
  });
  after(() => app.dispose());

  test('a Stack Exchange dump (Posts.xml + Users.xml) becomes the same documents as the JSONL shape: authors, licences, links', async () => {
    const dir = join(app.dir, 'dumps', 'ai.stackexchange.com');
    mkdirSync(dir, { recursive: true });
    cpSync(FIXTURE, dir, { recursive: true });
    const r = await app.ingest.ingestFile(join(dir, 'Posts.xml'));
    assert.deepEqual([r.inserted, r.failed, r.lines, r.site, r.usersFile], [4, 0, 5, 'ai.stackexchange.com', join(dir, 'Users.xml')]);
    const q = (await app.storage.documents.get('ai:1'))!;
    assert.equal(q.index, 'social');
    assert.equal(q.type, 'question');
    assert.equal(q.title, 'What does backpropagation compute & why?');
    assert.equal(q.abstract, 'What does backpropagation compute, and why is the cost O(n²)?\n\nI read the article & got lost.');
    assert.deepEqual(q.uris, ['https://ai.stackexchange.com/questions/1']);
    assert.deepEqual(q.attribution, { author: 'Björn Q. Tester', authorUrl: 'https://ai.stackexchange.com/users/8', url: 'https://ai.stackexchange.com/questions/1', site: 'ai.stackexchange.com', license: 'CC BY-SA 3.0' });
    assert.deepEqual(q.extra.tags, ['neural-networks', 'backpropagation']);
    assert.equal(q.issuedAt, Date.UTC(2016, 7, 2, 15, 39, 14) / 1000);
    const a = (await app.storage.documents.get('ai:3'))!;
    assert.equal(a.type, 'answer');
    assert.equal(a.title, 'What does backpropagation compute & why?', 'an answer carries its question title');
    assert.equal(a.attribution?.author, 'Ada Example');
    assert.equal(a.extra.is_accepted_answer, true);
    assert.deepEqual(a.references, ['arxiv://1502.05767v4', 'doi://10.1038/323533a0']);
    assert.match(a.abstract!, /grad = dL\/dw/);
    // A deleted account: the row's OwnerDisplayName; edited in 2019, so CC BY-SA 4.0.
    const gone = (await app.storage.documents.get('ai:5'))!;
    assert.deepEqual([gone.attribution?.author, gone.attribution?.authorUrl, gone.license, gone.extra.is_accepted_answer], ['departed user', null, 'CC BY-SA 4.0', false]);
    // ContentLicense (newer dumps) wins; `|a|b|` tags.
    const newer = (await app.storage.documents.get('ai:6'))!;
    assert.deepEqual([newer.license, newer.extra.tags], ['CC BY-SA 4.0', ['transformers', 'attention']]);
    assert.equal(await app.storage.documents.get('ai:2'), null, 'tag wikis are not posts');
    // Gzipped dumps read the same; re-ingesting changes nothing.
    const gz = join(app.dir, 'dumps', 'gz', 'ai.stackexchange.com');
    mkdirSync(gz, { recursive: true });
    for (const f of ['Posts.xml', 'Users.xml']) writeFileSync(join(gz, `${f}.gz`), gzipSync(readFileSync(join(FIXTURE, f))));
    const again = await app.ingest.ingestFile(join(gz, 'Posts.xml.gz'));
    assert.deepEqual([again.inserted, again.updated, again.unchanged], [0, 0, 4]);
  });

  test('a dump outside a site-named directory needs --site; Users.xml alone and broken XML are refused with the reason', async () => {
    const loose = join(app.dir, 'loose');
    mkdirSync(loose, { recursive: true });
    cpSync(join(FIXTURE, 'Posts.xml'), join(loose, 'Posts.xml'));
    await assert.rejects(app.ingest.ingestFile(join(loose, 'Posts.xml')), (e) => e instanceof AppError && /--site/.test(e.message));
    const r = await app.ingest.ingestFile(join(loose, 'Posts.xml'), { site: 'ai.stackexchange.com' });
    assert.equal(r.usersFile, null);
    assert.equal((await app.storage.documents.get('ai:3'))?.attribution?.author, null, 'no Users.xml: no name for a live account');
    await assert.rejects(app.ingest.ingestFile(join(FIXTURE, 'Users.xml'), { site: 'ai.stackexchange.com' }), (e) => e instanceof AppError && /root element is <users>, not <posts>/.test(e.message));
    writeFileSync(join(loose, 'Broken.xml'), '<posts>\n  <row Id="1" PostTypeId="1" Title="x" Body="y" CreationDate="2016-01-01T00:00:00"\n</posts>');
    await assert.rejects(app.ingest.ingestFile(join(loose, 'Broken.xml'), { site: 'ai.stackexchange.com' }), (e) => e instanceof AppError && /not a Stack Exchange Posts.xml: 3:1: disallowed character/.test(e.message));
    await assert.rejects(app.ingest.ingestFile(join(loose, 'Posts.xml'), { format: 'openalex', site: 'ai.stackexchange.com' }), (e) => e instanceof AppError && /is XML; --format openalex reads JSONL/.test(e.message));
    for (const id of ['ai:1', 'ai:3', 'ai:5', 'ai:6']) await app.storage.documents.delete(id, 1);
  });

  test('plain ingest of a missing file, a directory, a PDF, an EPUB, a 7z archive or a CSV: one line each, nothing written, exit 1', async () => {
    const pdf = join(app.dir, 'paper.pdf');
    writeFileSync(pdf, '%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\n');
    const epub = join(app.dir, 'book.epub');
    writeFileSync(epub, Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(26), Buffer.from('mimetypeapplication/epub+zip', 'latin1')]));
    const sevenZ = join(app.dir, 'ai.stackexchange.com.7z');
    writeFileSync(sevenZ, Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]));
    const csv = join(app.dir, 'table.csv');
    writeFileSync(csv, Array.from({ length: 14_000 }, (_, i) => `${i},title ${i},abstract`).join('\n'));
    const good = join(app.dir, 'good.jsonl');
    writeFileSync(good, JSON.stringify({ id: 'G1', title: 'A good record' }) + '\n');
    const missing = join(app.dir, 'nope.jsonl');
    const before = await app.storage.documents.count();
    const r = await cli(app, ['ingest', missing, app.dir, pdf, epub, sevenZ, csv, good]);
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('lectern: '));
    assert.deepEqual(
      lines.map((l) => l.slice(0, 60)),
      [
        `lectern: ${missing}: no such file.`,
        `lectern: ${app.dir} is a directory: give the files in it`,
        `lectern: ${pdf} is a PDF. Plain \`ingest\` reads JSONL records`,
        `lectern: ${epub} is an EPUB. Plain \`ingest\` reads JSONL recor`,
        `lectern: ${sevenZ} is a 7-Zip archive (Stack Exchange dumps come`,
        `lectern: ${csv}: none of the first 20 records could be read as`,
      ].map((l) => l.slice(0, 60)),
    );
    assert.match(r.stderr, /use `lectern ingest --recognize .*paper\.pdf`/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    // The CSV's bad lines: the first ten shown, then counted; the file stops after 20.
    assert.equal(r.stderr.split('\n').filter((l) => l.startsWith(`${csv}:`) && /not JSON/.test(l)).length, 10);
    const report = JSON.parse(r.stdout) as { file: string; inserted?: number; error?: { code: string } }[];
    assert.deepEqual(report.map((x) => [x.file, x.inserted ?? x.error?.code]), [
      [good, 1],
      [missing, 'not_found'],
      [app.dir, 'bad_request'],
      [pdf, 'unsupported_format'],
      [epub, 'unsupported_format'],
      [sevenZ, 'unsupported_format'],
      [csv, 'unprocessable'],
    ]);
    assert.equal(await app.storage.documents.count(), before + 1, 'only the good file was written');
  });

  test('--help on every command prints its usage without opening the store; unknown commands say so', async () => {
    // every command the usage lists (`  NAME ...` lines), so a new command cannot ship without its help
    const usage = await cli(null, ['--help']);
    assert.equal(usage.code, 0);
    const commands = [...new Set([...usage.stdout.matchAll(/^  ([a-z][a-z-]*) /gm)].map((m) => m[1]!))];
    assert.deepEqual(commands, ['serve', 'ingest', 'cluster', 'demo', 'index', 'models', 'ranking', 'accounts', 'keys', 'credits', 'jobs', 'comments', 'backup', 'restore', 'config']);
    assert.equal((await cli(null, ['help', '--help'])).code, 0);
    for (const command of commands) {
      for (const args of [[command, '--help'], [command, 'sub', '-h'], ['help', command]]) {
        const r = await cli(null, args);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stdout, new RegExp(`^Usage: lectern ${command}`), args.join(' '));
      }
    }
    // subcommands' --help (issue 25: `models train --help` answered "unknown command")
    for (const args of [['models', 'train', '--help'], ['models', 'status', '--help'], ['models', 'encode', '-h'], ['models', 'check-encoder', '--help'], ['ranking', 'train', '--help'], ['accounts', 'rate-limit', '--help'], ['jobs', 'dead', '--help'], ['jobs', 'retry', '--help']]) {
      const r = await cli(null, args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: lectern ${args[0]} `), args.join(' '));
      assert.ok(r.stdout.includes(args[1]!), `${args.join(' ')} names its subcommand`);
    }
    const unknown = await cli(null, ['help', 'frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });
});

describe('the demo corpus is never mixed in unnoticed', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp();
  });
  after(() => app.dispose());

  test('demo status and remove; an ingest into a store holding the demo corpus says so', async () => {
    assert.deepEqual(await app.demoCorpus.status(), { present: false, documents: 0 });
    // Two records of the demo corpus (their ids as the demo files define them) and one of the operator's.
    const ids = await app.demoCorpus.ids();
    assert.ok(ids.length > 6000, String(ids.length));
    assert.ok(ids.includes('W21837692') && ids.includes('quantumcomputing:1'));
    const own = join(app.dir, 'own.jsonl');
    writeFileSync(own, `${JSON.stringify({ id: 'MINE', title: 'My own record' })}\n`);
    const quiet = await cli(app, ['ingest', own]);
    assert.equal(quiet.code, 0);
    assert.doesNotMatch(quiet.stderr, /demo corpus/);
    const demoLines = join(app.dir, 'demo-part.jsonl');
    writeFileSync(demoLines, [JSON.stringify({ id: 'https://openalex.org/W21837692', title: 'Demo work' }), JSON.stringify({ id: 'quantumcomputing:1', site: 'quantumcomputing.stackexchange.com', post_type: 'question', title: 'Demo post' })].join('\n'));
    await app.ingest.ingestFile(demoLines);
    assert.deepEqual(await app.demoCorpus.status(), { present: true, documents: 2 });
    const noisy = await cli(app, ['ingest', own]);
    assert.match(noisy.stderr, /note: this store also holds the demo corpus \(2 documents loaded at first start\).*lectern demo remove/);
    // a missing file: one line, whatever the store holds (issue 25: the notes and an empty JSON report made 12)
    const missing = await cli(app, ['ingest', join(app.dir, 'nope.jsonl')]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `lectern: ${join(app.dir, 'nope.jsonl')}: no such file.\n`);
    assert.equal(missing.stdout, '');
    const status = await cli(app, ['demo', 'status']);
    assert.deepEqual(JSON.parse(status.stdout), { demo_corpus: 'loaded', demo_documents: 2, store_documents: 3, load_on_first_start: false });
    const removed = await cli(app, ['demo', 'remove']);
    assert.deepEqual(JSON.parse(removed.stdout), { removed: 2, store_documents: 1, load_on_first_start: false });
    assert.ok(await app.storage.documents.get('MINE'), 'the operator’s own record stays');
    assert.deepEqual(await app.demoCorpus.status(), { present: false, documents: 0 });
  });
});

describe('the demo corpus is known without reading it (ADR 0243)', () => {
  test('the committed id list is exactly the ids the demo files define; the markers are the first of each file', async () => {
    const files = new FsSourceFiles();
    const parsed = await parseDemoIds(files, DEMO_FILES);
    const listed = readFileSync(DEMO_IDS, 'utf8').split('\n').filter((l) => l !== '');
    assert.deepEqual(listed, parsed);
    const firsts: string[] = [];
    for (const file of DEMO_FILES) firsts.push((await parseDemoIds(files, [file]))[0]!);
    assert.deepEqual([...DEMO_MARKER_IDS], firsts);
  });

  test('with the demo corpus absent, its status reads no file; present, it counts from the committed list', async () => {
    const app = await testApp();
    try {
      const reads: string[] = [];
      const real = new FsSourceFiles();
      // every file access is recorded (and then served by the real files)
      const watched = new Proxy(real, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          return typeof v === 'function' ? (...args: unknown[]) => (reads.push(`${String(prop)} ${String(args[0])}`), (v as (...a: unknown[]) => unknown).apply(target, args)) : v;
        },
      }) as SourceFiles;
      const demo = new DemoCorpus(watched, DEMO_IDS, app.storage.documents, app.clock);
      await seed(app, [doc('MINE')]);
      assert.deepEqual(await demo.status(), { present: false, documents: 0 });
      assert.deepEqual(reads, [], 'nothing of the demo corpus is read when the store does not hold it');
      await seed(app, [doc('acl-2020.acl-main.447'), doc('ai:2451')]);
      assert.deepEqual(await demo.status(), { present: true, documents: 2 });
      assert.deepEqual(reads, [`lines ${DEMO_IDS}`], 'only the committed id list, never the demo files');
    } finally {
      await app.dispose();
    }
  });
});
