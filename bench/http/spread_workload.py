#!/usr/bin/env python3
# A workload of `or` queries spread over the corpus (ADR 0359): N queries of three words from the title of
# a random document each (seeded), so pages rarely repeat within a run, unlike the fixed 200 queries of
# the synthetic workload; phrase and filter are copied from the fixed workload.
#   python3 bench/http/spread_workload.py CORPUS.jsonl WORKLOAD.json OUT.json [N=6000] [SEED=29]
import json, random, re, sys

corpus, fixed, out = sys.argv[1:4]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 6000
random.seed(int(sys.argv[5]) if len(sys.argv) > 5 else 29)
lines = open(corpus).read().splitlines()
stop = set('with from that this their these which into about over under between among after before during within without'.split())
qs = []
while len(qs) < n:
    d = json.loads(random.choice(lines))
    ws = [w for w in re.findall(r'[a-z]+', (d.get('title') or '').lower()) if len(w) > 3 and w not in stop]
    if len(ws) < 3:
        continue
    t = ' '.join(random.sample(ws, 3))
    qs.append({'qid': 'sp%d' % len(qs), 'cls': 'or', 'text': t, 'terms': t.split(), 'phrases': [], 'filter': None})
w = json.load(open(fixed))
json.dump({'or': qs, 'phrase': w['phrase'], 'filter': w['filter']}, open(out, 'w'))
