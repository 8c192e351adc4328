#!/usr/bin/python3
# Peer for bench/ranking/quality.ts, run in the same process tree: Xapian (Debian's python3-xapian) BM25
# over a BEIR collection (title + text, English stemming), the same judged queries (ids on stdin, one a
# line), top 100; prints {"ndcg10", "recall100", "queries", "queryMsMean"} as one JSON object. nDCG@10
# with exponential gain (2^rel - 1) / log2(rank + 1), as bench/quality/ir-eval.ts computes it.
#   /usr/bin/python3 bench/ranking/xapian_quality.py BEIR_DIR SPLIT DBDIR < query-ids
import json, math, os, shutil, sys, time
import xapian

beir, split, dbdir = sys.argv[1], sys.argv[2], sys.argv[3]
wanted = [l.strip() for l in sys.stdin if l.strip()]
stem = xapian.Stem('english')
if os.path.exists(dbdir):
    shutil.rmtree(dbdir)
db = xapian.WritableDatabase(dbdir, xapian.DB_CREATE_OR_OVERWRITE)
tg = xapian.TermGenerator()
tg.set_stemmer(stem)
tg.set_stemming_strategy(xapian.TermGenerator.STEM_SOME)
with open(os.path.join(beir, 'corpus.jsonl'), encoding='utf-8') as f:
    for line in f:
        if not line.strip():
            continue
        d = json.loads(line)
        doc = xapian.Document()
        tg.set_document(doc)
        for field in ('title', 'text'):
            if d.get(field):
                tg.index_text(d[field])
                tg.increase_termpos()
        doc.set_data(str(d['_id']))
        db.add_document(doc)
db.commit()
db.close()

queries = {}
with open(os.path.join(beir, 'queries.jsonl'), encoding='utf-8') as f:
    for line in f:
        if line.strip():
            q = json.loads(line)
            queries[str(q['_id'])] = q['text']
qrels = {}
with open(os.path.join(beir, 'qrels', split + '.tsv'), encoding='utf-8') as f:
    for i, line in enumerate(f):
        parts = line.rstrip('\n').split('\t')
        if len(parts) < 3 or (i == 0 and not parts[2].lstrip('-').isdigit()):
            continue
        qrels.setdefault(parts[0], {})[parts[1]] = float(parts[2])

db = xapian.Database(dbdir)
enq = xapian.Enquire(db)
enq.set_weighting_scheme(xapian.BM25Weight())
qp = xapian.QueryParser()
qp.set_stemmer(stem)
qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
qp.set_database(db)
qp.set_default_op(xapian.Query.OP_OR)

def ndcg10(ranking, rels):
    dcg = sum((2 ** rels.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranking[:10]) if rels.get(d, 0) > 0)
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:10]
    idcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0

def recall100(ranking, rels):
    relevant = [d for d, r in rels.items() if r > 0]
    top = set(ranking[:100])
    return sum(1 for d in relevant if d in top) / len(relevant) if relevant else 0.0

n = 0
nd = rc = 0.0
ms = 0.0
for qid in wanted:
    text = queries.get(qid)
    rels = qrels.get(qid)
    if text is None or rels is None:
        continue
    t = time.perf_counter()
    try:
        q = qp.parse_query(text, xapian.QueryParser.FLAG_DEFAULT)
    except xapian.QueryParserError:
        q = qp.parse_query(text, 0)
    enq.set_query(q)
    ranking = [m.document.get_data().decode('utf-8') for m in enq.get_mset(0, 100)]
    ms += (time.perf_counter() - t) * 1000
    nd += ndcg10(ranking, rels)
    rc += recall100(ranking, rels)
    n += 1
shutil.rmtree(dbdir, ignore_errors=True)
print(json.dumps({'engine': 'xapian ' + xapian.version_string(), 'queries': n, 'ndcg10': nd / max(n, 1), 'recall100': rc / max(n, 1), 'queryMsMean': ms / max(n, 1)}))
