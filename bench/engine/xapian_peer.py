#!/usr/bin/python3
# Peer for bench/engine/run.ts, measured in the same run: Xapian (Debian's python3-xapian) over the same
# synthetic corpus and workload. Indexes title, abstract and body (English stemming, positions), the
# type as a boolean term and issued_at as a sortable value; runs each class (or, phrase, filter) once as
# warm-up then ROUNDS times, top-10 by BM25, single thread; prints one JSON object.
# Latency is reported as wall-clock and as CPU time of the querying thread (cpu_*: robust to other
# processes on shared cores, like the engine's cpu_* numbers).
#   /usr/bin/python3 bench/engine/xapian_peer.py CORPUS WORKLOAD DIR ROUNDS LIMIT [reuse]
# reuse: query the database an earlier run left in DIR instead of rebuilding it (build numbers are null).
import json, os, shutil, sys, time
import xapian

corpus, workload_path, dbdir, rounds, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
reuse = len(sys.argv) > 6 and sys.argv[6] == 'reuse' and os.path.exists(dbdir)
stem = xapian.Stem('english')

t0 = time.perf_counter()
if not reuse and os.path.exists(dbdir):
    shutil.rmtree(dbdir)
db = xapian.WritableDatabase(dbdir, xapian.DB_CREATE_OR_OPEN if reuse else xapian.DB_CREATE_OR_OVERWRITE)
tg = xapian.TermGenerator()
tg.set_stemmer(stem)
tg.set_stemming_strategy(xapian.TermGenerator.STEM_SOME)
n = db.get_doccount() if reuse else 0
parse_s = 0.0
if not reuse:
    with open(corpus, encoding='utf-8') as f:
        for line in f:
            if n >= limit:
                break
            p = time.perf_counter()
            d = json.loads(line)
            parse_s += time.perf_counter() - p
            doc = xapian.Document()
            tg.set_document(doc)
            for field in ('title', 'abstract', 'body'):
                if d.get(field):
                    tg.index_text(d[field])
                    tg.increase_termpos()
            doc.add_boolean_term('XT' + d['type'])
            doc.add_value(0, xapian.sortable_serialise(d['issued_at']))
            doc.add_boolean_term('Q' + d['id'])
            db.add_document(doc)
            n += 1
            if n % 50000 == 0:
                db.commit()
db.commit()
build_s = None if reuse else time.perf_counter() - t0 - parse_s
db.close()
size = sum(os.path.getsize(os.path.join(dbdir, x)) for x in os.listdir(dbdir))

db = xapian.Database(dbdir)
enq = xapian.Enquire(db)
enq.set_weighting_scheme(xapian.BM25Weight())
qp = xapian.QueryParser()
qp.set_stemmer(stem)
qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
qp.set_database(db)
qp.set_default_op(xapian.Query.OP_OR)

def query(w):
    q = qp.parse_query(w['text'], xapian.QueryParser.FLAG_PHRASE | xapian.QueryParser.FLAG_DEFAULT)
    f = w.get('filter')
    if f:
        parts = []
        if f.get('types'):
            parts.append(xapian.Query(xapian.Query.OP_OR, ['XT' + t for t in f['types']]))
        lo = f.get('issued_after')
        hi = f.get('issued_before')
        if lo is not None or hi is not None:
            parts.append(xapian.Query(xapian.Query.OP_VALUE_RANGE, 0,
                                      xapian.sortable_serialise(lo if lo is not None else -1e18),
                                      xapian.sortable_serialise(hi if hi is not None else 1e18)))
        q = xapian.Query(xapian.Query.OP_FILTER, q, xapian.Query(xapian.Query.OP_AND, parts))
    return q

def pct(xs, p):
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))]

workload = json.load(open(workload_path))
out = {}
for cls in ('or', 'phrase', 'filter'):
    qs = [query(w) for w in workload[cls]]
    for q in qs:
        enq.set_query(q)
        enq.get_mset(0, 10)
    samples = []
    cpu = []
    with_hits = 0
    for r in range(rounds):
        for q in qs:
            c = time.thread_time_ns()
            t = time.perf_counter()
            enq.set_query(q)
            m = enq.get_mset(0, 10)
            for it in m:
                it.docid
            samples.append((time.perf_counter() - t) * 1000)
            cpu.append((time.thread_time_ns() - c) / 1e6)
            if r == 0 and m.size() > 0:
                with_hits += 1
    samples.sort()
    cpu.sort()
    out[cls] = {'queries': len(qs), 'samples': len(samples), 'p50_ms': round(pct(samples, 50), 4), 'p95_ms': round(pct(samples, 95), 4),
                'p99_ms': round(pct(samples, 99), 4), 'mean_ms': round(sum(samples) / len(samples), 4),
                'cpu_p50_ms': round(pct(cpu, 50), 4), 'cpu_p95_ms': round(pct(cpu, 95), 4), 'cpu_p99_ms': round(pct(cpu, 99), 4),
                'queries_with_hits': with_hits}
print(json.dumps({'engine': 'xapian ' + xapian.version_string() + ' (python3-xapian, in process)', 'docs': n,
                  'build_docs_per_s': None if build_s is None else round(n / build_s), 'build_s': None if build_s is None else round(build_s, 1), 'index_mib': round(size / 2 ** 20, 1), 'latency': out}))
