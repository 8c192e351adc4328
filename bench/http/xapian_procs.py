#!/usr/bin/python3
# Xapian given N processes (issue 29: "as many processes as Lectern has clients"): N worker processes,
# each with its own Database handle over DIR, loop over one query class of the fixed workload (each
# starting at a different query) for SECONDS, top-10 by BM25 (ids read, as bench/engine/xapian_peer.py
# does; no documents or snippets are built: Xapian's part of the work only). Prints one JSON object:
# queries/s of all processes together, CPU ms per query (the processes' user+system time / queries) and
# latency percentiles.
#   /usr/bin/python3 bench/http/xapian_procs.py DIR WORKLOAD CLASS PROCS SECONDS
import json, multiprocessing as mp, os, sys, time
import xapian

dbdir, workload_path, cls, procs, seconds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])

def worker(i, start_at, out):
    db = xapian.Database(dbdir)
    enq = xapian.Enquire(db)
    enq.set_weighting_scheme(xapian.BM25Weight())
    stem = xapian.Stem('english')
    qp = xapian.QueryParser()
    qp.set_stemmer(stem)
    qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
    qp.set_database(db)
    qp.set_default_op(xapian.Query.OP_OR)
    work = json.load(open(workload_path))[cls]
    def query(w):
        q = qp.parse_query(w['text'], xapian.QueryParser.FLAG_PHRASE | xapian.QueryParser.FLAG_DEFAULT)
        f = w.get('filter')
        if f:
            parts = []
            if f.get('types'):
                parts.append(xapian.Query(xapian.Query.OP_OR, ['XT' + t for t in f['types']]))
            lo, hi = f.get('issued_after'), f.get('issued_before')
            if lo is not None or hi is not None:
                parts.append(xapian.Query(xapian.Query.OP_VALUE_RANGE, 0, xapian.sortable_serialise(lo if lo is not None else -1e18), xapian.sortable_serialise(hi if hi is not None else 1e18)))
            q = xapian.Query(xapian.Query.OP_FILTER, q, xapian.Query(xapian.Query.OP_AND, parts))
        return q
    # warm-up: every query once (the page cache and the parser)
    for w in work:
        enq.set_query(query(w)); enq.get_mset(0, 10)
    start_at.wait()
    lat = []
    c0 = time.process_time()
    t_end = time.perf_counter() + seconds
    k = i * 7
    while True:
        t = time.perf_counter()
        if t >= t_end:
            break
        # parsing counts: Lectern's server parses each query too
        enq.set_query(query(work[k % len(work)]))
        m = enq.get_mset(0, 10)
        for it in m:
            it.docid
        lat.append((time.perf_counter() - t) * 1000)
        k += 1
    out.put((len(lat), time.process_time() - c0, lat))

if __name__ == '__main__':
    start_at = mp.Barrier(procs + 1)
    out = mp.Queue()
    ps = [mp.Process(target=worker, args=(i, start_at, out)) for i in range(procs)]
    for p in ps:
        p.start()
    start_at.wait()
    t0 = time.perf_counter()
    res = [out.get() for _ in ps]
    wall = time.perf_counter() - t0
    for p in ps:
        p.join()
    n = sum(r[0] for r in res)
    cpu = sum(r[1] for r in res)
    lat = sorted(x for r in res for x in r[2])
    pct = lambda p: round(lat[min(len(lat) - 1, int(len(lat) * p / 100))], 3) if lat else None
    print(json.dumps({'engine': 'xapian ' + xapian.version_string(), 'class': cls, 'processes': procs, 'seconds': round(wall, 2), 'queries': n,
                      'searches_per_second': round(n / wall), 'cpu_ms_per_query': round(cpu * 1000 / max(1, n), 3),
                      'latency_ms': {'p50': pct(50), 'p95': pct(95), 'p99': pct(99)}}))
