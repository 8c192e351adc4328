// The script `mutool run` executes at the start of a PDF conversion: in one process it prints the document
// facts exactly as `mutool show input.pdf <SHOW_PATHS_WITH_BOXES>` does (so parseShowWithBoxes reads both)
// and writes the first pages' structured text exactly as `mutool convert -F stext.json -O preserve-images`
// does (same MuPDF document writer). One process instead of two saves a process start, MuPDF's start-up
// and a second parse of the document for every PDF. The script is data for the unmodified mutool
// program (MuJS, ECMAScript 5); mutool stays a separate process.
//
// Arguments: input file, output JSON file, number of leading pages to extract.
// Both scripts first give ligature glyphs their letters (LIGATURES below), which `mutool convert` cannot,
// and give the glyphs of ActualText spans the spans' text (lecternWritePages, ADR 0386), which MuPDF 1.21
// does not read.
// Any failure (password, damaged page tree, a page that cannot be read) throws, so mutool exits non-zero
// and the caller falls back to the separate `mutool show` / `mutool pages` / `mutool convert` calls.

/**
 * Ligature glyphs named by their letters joined with underscores (`f_f`, `f_i`, `f_f_i`, `T_h`, `uni0066_uni0069`;
 * a `.suffix` ignored), the Adobe Glyph List's rule for ligature names, as TeX's Type 1 fonts (Libertine,
 * newtx, Nimbus) name them in the font's /Differences. MuPDF 1.21 maps such a name to its first letter only
 * ("ofers" for "offers", "frst" for "first"), where `pdftotext` reads every letter. For each simple font of the
 * pages' resources (and of their forms') that has no ToUnicode, a ToUnicode CMap is added in memory that maps
 * just those codes to their letters; MuPDF still maps every other code from its glyph name, as before. The
 * file is not changed. Defines lecternLigatures(doc, first, last) (0-based pages, last excluded),
 * lecternWritePages(doc, out, format, first, last), the text layer of those pages as `mutool convert` writes it,
 * and lecternSpaceWidths(doc, first, last), which prints `S<TAB>font<TAB>width` for each simple font (Type 1,
 * TrueType) of those pages' resources with an /Encoding (or a Type 1 font with neither it nor a ToUnicode):
 * the font's name as MuPDF's text layer names it (subset prefix
 * dropped) and the /Widths entry of its space glyph in thousandths of an em (the code that /Differences
 * names `space`, else 32 unless /Differences gives 32 another glyph), 0 when the font has none (the code
 * outside /FirstChar-/LastChar or of zero width): every space MuPDF writes in such a font is one it
 * inserted into a gap (glyph-spacing.ts, ADR 0374 amendment).
 */
const LIGATURES = String.raw`
function lecternLigatures(doc, first, last) {
  function hex4(c) { var h = c.toString(16).toUpperCase(); while (h.length < 4) h = '0' + h; return h; }
  function letters(name) {
    var base = name.split('.')[0];
    if (base.indexOf('_') < 0) return null;
    var parts = base.split('_'), out = '';
    for (var q = 0; q < parts.length; q++) {
      var c = parts[q];
      if (/^[A-Za-z]$/.test(c)) out += hex4(c.charCodeAt(0));
      else if (/^uni(?:[0-9A-F]{4})+$/.test(c)) out += c.slice(3);
      else if (/^u[0-9A-F]{4}$/.test(c)) out += c.slice(1);
      else return null;
    }
    return out;
  }
  function font(f) {
    if (f.get('ToUnicode')) return;
    var enc = f.get('Encoding');
    if (!enc || !enc.isDictionary()) return;
    var d = enc.get('Differences');
    if (!d || !d.isArray()) return;
    var code = 0, map = [];
    for (var j = 0; j < d.length; j++) {
      var v = d.get(j);
      if (v.isNumber()) code = v.asNumber();
      else if (v.isName()) {
        var u = code >= 0 && code < 256 ? letters(v.asName()) : null;
        if (u) map.push('<' + (code < 16 ? '0' : '') + code.toString(16) + '> <' + u + '>');
        code++;
      }
    }
    if (!map.length) return;
    f.put('ToUnicode', doc.addStream('/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Lectern-Ligatures def /CMapType 2 def\n1 begincodespacerange <00> <FF> endcodespacerange\n' + map.length + ' beginbfchar\n' + map.join('\n') + '\nendbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end\n', {}));
  }
  lecternEachFont(doc, first, last, font);
}
function lecternSpaceWidths(doc, first, last) {
  function font(f) {
    var sub = f.get('Subtype'), base = f.get('BaseFont'), fc = f.get('FirstChar'), w = f.get('Widths');
    if (!sub || !sub.isName() || !base || !base.isName() || !fc || !fc.isNumber() || !w || !w.isArray()) return;
    var st = sub.asName();
    if (st !== 'Type1' && st !== 'TrueType' && st !== 'MMType1') return;
    var code = 32, enc = f.get('Encoding');
    // Without an /Encoding a TrueType font's codes are its own (LibreOffice numbers a subset's glyphs from
    // 1, its space among them), and a Type 1 font with a ToUnicode may be one of TeX's: code 32 says nothing.
    if (!enc && (st === 'TrueType' || f.get('ToUnicode'))) return;
    if (enc && enc.isDictionary()) {
      var d = enc.get('Differences');
      if (d && d.isArray()) {
        var c = 0, at = -1;
        for (var j = 0; j < d.length; j++) {
          var v = d.get(j);
          if (v.isNumber()) c = v.asNumber();
          else if (v.isName()) {
            if (v.asName() === 'space' && at < 0) at = c;
            else if (c === 32) code = -1;
            c++;
          }
        }
        if (at >= 0) code = at;
      }
    }
    var i = code - fc.asNumber(), width = 0;
    if (code >= 0 && i >= 0 && i < w.length) {
      var x = w.get(i);
      if (x && x.isNumber()) width = x.asNumber();
    }
    var name = base.asName(), plus = name.indexOf('+');
    print('S\t' + (plus >= 0 ? name.slice(plus + 1) : name) + '\t' + width);
  }
  lecternEachFont(doc, first, last, font);
}
/* Calls visit(font) once for each distinct font dictionary of pages first..last-1 (0-based), through the
   pages' resources (inherited from their parents) and their form XObjects' resources, 8 levels deep. */
function lecternEachFont(doc, first, last, visit) {
  var seen = {};
  function once(o) {
    if (!o.isIndirect()) return true;
    var k = 'o' + o.asIndirect();
    if (seen[k]) return false;
    seen[k] = true;
    return true;
  }
  function resources(r, depth) {
    if (!r || !r.isDictionary() || depth > 8 || !once(r)) return;
    var fonts = r.get('Font');
    if (fonts && fonts.isDictionary()) fonts.forEach(function (k, f) { if (f && f.isDictionary() && once(f)) visit(f); });
    var xs = r.get('XObject');
    if (xs && xs.isDictionary()) xs.forEach(function (k, x) { if (x && x.isStream() && once(x) && x.get('Resources')) resources(x.get('Resources'), depth + 1); });
  }
  for (var p = first; p < last; p++) {
    var o = doc.findPage(p), r = null;
    for (var up = 0; o && o.isDictionary() && up < 32; up++) {
      r = o.get('Resources');
      if (r) break;
      o = o.get('Parent');
    }
    resources(r, 0);
  }
}
/* ActualText spans (ADR 0386). */
function lecternResources(o) {
  for (var up = 0; o && o.isDictionary() && up < 32; up++) {
    var r = o.get('Resources');
    if (r && r.isDictionary()) return r;
    o = o.get('Parent');
  }
  return null;
}
/* Whether a named property list of the resources (BDC's /Name operand) has an ActualText. */
function lecternNamedActualText(res) {
  var props = res.get('Properties'), named = false;
  if (props && props.isDictionary()) props.forEach(function (k, v) { if (v && v.isDictionary() && v.get('ActualText')) named = true; });
  return named;
}
/* The ActualText of each BDC of the page's content (null where it has none), or null when none has one. */
function lecternSpanTexts(page, res) {
  var list = [], any = false, props = null;
  page.process({ op_BDC: function (tag, raw) {
    var d = raw, t = null;
    if (d && d.isName()) {
      if (props === null) { props = res ? res.get('Properties') : null; if (!props || !props.isDictionary()) props = false; }
      d = props ? props.get(d.asName()) : null;
    }
    if (d && d.isDictionary()) {
      var a = d.get('ActualText');
      if (a && a.isString()) { t = a.asString(); any = true; }
    }
    list.push(t);
  } });
  return any ? list : null;
}
/*
 * The page's content (its streams joined by newlines, a comment at the end): buf, a Buffer, and s, the same
 * bytes as a string (read back through tmp: MuJS has no other way from a Buffer to a string), null where a NUL
 * byte ended the string early (the comment is not at its end).
 */
function lecternPageContent(contents, tmp) {
  var buf = new Buffer();
  if (contents.isArray()) { for (var i = 0; i < contents.length; i++) { var c = contents.get(i); if (c && c.isStream()) { buf.writeBuffer(c.readStream()); buf.writeByte(10); } } }
  else if (contents.isStream()) { buf.writeBuffer(contents.readStream()); buf.writeByte(10); }
  buf.write('%LecternEnd');
  var s = null;
  if (tmp) {
    buf.save(tmp);
    s = read(tmp);
    if (s.slice(-11) !== '%LecternEnd') s = null;
  }
  return { buf: buf, s: s, ascii: false };
}
/*
 * The content's tokens as strings (one character per byte): from an ASCII string by one regular expression
 * (null where a literal string nests parentheses, which it cannot match, or there is an inline image), or byte
 * by byte, an inline image (BI ... ID data EI) one token. Comments are left out.
 */
function lecternTokens(src) {
  var t, i;
  if (src.ascii) {
    t = src.s.match(/\((?:\\[\s\S]|[^\\)])*\)|<<|>>|<[^>]*>|[\[\]{}]|\/[^\s\/\[\]()<>{}%]*|%[^\r\n]*|[^\s\/\[\]()<>{}%]+/g) || [];
    var out = [];
    for (i = 0; i < t.length; i++) {
      var w = t[i], c = w.charAt(0);
      if (c === '%') continue;
      if ((c === '(' && w.indexOf('(', 1) > 0) || w === 'BI') return null;
      out.push(w);
    }
    return out;
  }
  var b = src.buf, n = b.length, toks = [];
  function ws(c) { return c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 0; }
  function delim(c) { return c === 40 || c === 41 || c === 60 || c === 62 || c === 91 || c === 93 || c === 123 || c === 125 || c === 47 || c === 37; }
  function word(a, e) { var r = ''; for (var k = a; k < e; k++) r += String.fromCharCode(b[k]); return r; }
  i = 0;
  while (i < n) {
    var ch = b[i], start = i;
    if (ws(ch)) { i++; continue; }
    if (ch === 37) { while (i < n && b[i] !== 10 && b[i] !== 13) i++; continue; }
    if (ch === 40) {
      var nest = 0;
      for (; i < n; i++) {
        var d = b[i];
        if (d === 92) { i++; continue; }
        if (d === 40) nest++;
        else if (d === 41 && --nest === 0) { i++; break; }
      }
    } else if ((ch === 60 && b[i + 1] === 60) || (ch === 62 && b[i + 1] === 62)) i += 2;
    else if (ch === 60) { while (i < n && b[i] !== 62) i++; i++; }
    else if (ch === 91 || ch === 93 || ch === 123 || ch === 125) i++;
    else if (ch === 41 || ch === 62) { i++; continue; }
    else if (ch === 47) { i++; while (i < n && !ws(b[i]) && !delim(b[i])) i++; }
    else {
      while (i < n && !ws(b[i]) && !delim(b[i])) i++;
      if (i - start === 2 && ch === 66 && b[start + 1] === 73) {
        // BI: the image's data runs from ID to EI, each set apart by whitespace.
        while (i < n && !(b[i] === 73 && b[i + 1] === 68 && ws(b[i - 1]) && ws(b[i + 2]))) i++;
        i += 3;
        while (i < n && !(ws(b[i - 1]) && b[i] === 69 && b[i + 1] === 73 && (i + 2 >= n || ws(b[i + 2]) || delim(b[i + 2])))) i++;
        i = Math.min(n, i + 2);
      }
    }
    toks.push(word(start, Math.min(i, n)));
  }
  return toks;
}
/*
 * Rewrites the page's content (in memory) so that zero-width marker glyphs of a Type3 font
 * (LecternActualTextMarker) open and close each outermost ActualText span: the glyphs between them are the
 * span's. Inside a text object the markers are set in the current font's place and size, which is set back
 * after them, and a TJ offset takes back the character spacing (Tc) each marker glyph adds; outside one they
 * are a text object of their own. The content is written back token by token (its comments left out).
 * Returns the spans' texts by marker id, or null when nothing was marked (the page as it was).
 */
function lecternMarkSpans(doc, pageObj, texts, res, src) {
  var toks = lecternTokens(src);
  if (!toks) return null;
  var before = {}, after = {}, ids = [], ops = [], depth = 0;
  var font = null, tc = 0, gs = [], inBT = false, mc = [], bdc = 0, active = -1, activeDepth = 0, pending = null;
  function begin(text, t) {
    active = ids.length;
    ids.push(text);
    after[t] = marker([1, 64 + (active >> 6), 64 + (active & 63)], 3);
  }
  function marker(codes, count) {
    var hex = '';
    for (var i = 0; i < codes.length; i++) hex += (codes[i] < 16 ? '0' : '') + codes[i].toString(16);
    var k = Math.round(count * tc * 1000 * 1000) / 1000;
    // Without a font (none set on the page yet) there is none to set back: a text operator needs a Tf first.
    if (inBT) return '/LecternActualTextMarker 1 Tf [<' + hex + '>' + (k ? ' ' + k : '') + '] TJ' + (font ? ' /' + font.name + ' ' + font.size + ' Tf' : '');
    return 'q BT /LecternActualTextMarker 1 Tf <' + hex + '> Tj ET Q';
  }
  for (var t = 0; t < toks.length; t++) {
    var w = toks[t], c = w.charAt(0);
    if (w === '<<' || w === '[') { depth++; continue; }
    if (w === '>>' || w === ']') { depth--; if (depth === 0) ops.push(w); continue; }
    if (depth > 0) continue;
    if (c === '/' || c === '(' || c === '<' || /^[+\-.0-9]/.test(w)) { ops.push(w); if (ops.length > 8) ops.shift(); continue; }
    var a = ops, l = a.length;
    ops = [];
    if (w === 'Tf' && l >= 2 && a[l - 2].charAt(0) === '/') {
      font = { name: a[l - 2].slice(1), size: a[l - 1] };
      // A span opened in a text object before its font was set (LibreOffice: BT, BDC, Td, Tf, TJ) is marked here.
      if (pending !== null) { begin(pending, t); pending = null; }
    } else if (w === 'Tj' || w === 'TJ' || w === "'" || w === '"') {
      if (pending !== null) { pending = null; active = -1; }
      if (w === '"' && l >= 3) tc = Number(a[l - 2]) || 0;
    }
    else if (w === 'Tc' && l >= 1) tc = Number(a[l - 1]) || 0;
    else if (w === 'q') gs.push({ font: font, tc: tc });
    else if (w === 'Q') { if (gs.length) { var g = gs.pop(); font = g.font; tc = g.tc; } }
    else if (w === 'BT') inBT = true;
    else if (w === 'ET') inBT = false;
    else if (w === 'BMC') mc.push(false);
    else if (w === 'BDC') {
      if (bdc >= texts.length) return null;
      var text = texts[bdc++];
      mc.push(true);
      if (text !== null && active === -1 && ids.length < 4096) {
        activeDepth = mc.length;
        if (!inBT || font) begin(text, t);
        else { pending = text; active = -2; }
      }
    } else if (w === 'EMC') {
      if (active !== -1 && mc.length === activeDepth) {
        if (active >= 0) before[t] = marker([2], 1);
        active = -1;
        pending = null;
      }
      if (mc.length) mc.pop();
    }
  }
  if (bdc !== texts.length || !ids.length) return null;
  var end = active >= 0 ? marker([2], 1) : null;
  var out = new Buffer(), ascii = src.ascii;
  function put(s) {
    if (ascii) out.write(s);
    else for (var k = 0; k < s.length; k++) out.writeByte(s.charCodeAt(k));
    out.writeByte(32);
  }
  for (var u = 0; u < toks.length; u++) {
    if (before[u]) out.write(before[u] + ' ');
    put(toks[u]);
    if (after[u]) out.write(after[u] + ' ');
  }
  if (end) out.write(end);
  var fonts = res.get('Font');
  if (!fonts || !fonts.isDictionary()) { fonts = doc.newDictionary(); res.put('Font', fonts); }
  fonts.put('LecternActualTextMarker', lecternMarkFont(doc));
  pageObj.put('Contents', doc.addStream(out, doc.newDictionary()));
  return ids;
}
function lecternMarkFont(doc) {
  if (lecternMarkFont.obj) return lecternMarkFont.obj;
  var f = doc.newDictionary(), procs = doc.newDictionary(), enc = doc.newDictionary(), diff = doc.newArray(), widths = doc.newArray(), bbox = doc.newArray(), mat = doc.newArray();
  procs.put('m', doc.addStream('0 0 0 0 0 0 d1', doc.newDictionary()));
  diff.push(0);
  for (var c = 0; c < 128; c++) { diff.push(doc.newName('m')); widths.push(0); }
  enc.put('Type', doc.newName('Encoding'));
  enc.put('Differences', diff);
  for (var k = 0; k < 4; k++) bbox.push(0);
  mat.push(0.001); mat.push(0); mat.push(0); mat.push(0.001); mat.push(0); mat.push(0);
  f.put('Type', doc.newName('Font'));
  f.put('Subtype', doc.newName('Type3'));
  f.put('Name', doc.newName('LecternActualTextMarker'));
  f.put('FontBBox', bbox);
  f.put('FontMatrix', mat);
  f.put('CharProcs', procs);
  f.put('Encoding', enc);
  f.put('FirstChar', 0);
  f.put('LastChar', 127);
  f.put('Widths', widths);
  f.put('Resources', doc.newDictionary());
  lecternMarkFont.obj = doc.addObject(f);
  return lecternMarkFont.obj;
}
/*
 * A device that passes everything the text device reads on to dev, with the glyphs of each marked span
 * given its ActualText instead of their own characters: the characters go to the span's glyphs in order,
 * one each, the last glyph taking the rest as zero-width fillers (as MuPDF writes a glyph that maps to several
 * characters); glyphs beyond the text's length are left out (a sign drawn on a dotted circle: the circle
 * takes the sign). The marker glyphs are dropped.
 * A text object without markers or span glyphs is passed on as it came (the text device skips an object it
 * has just read, as when a clipping text mode sends it twice: a rebuilt one is passed again the same way).
 */
function lecternSpanDevice(dev, texts) {
  var cur = -1, rest = [], pend = [], want = 0, hi = 0, lastKey = null, lastOut = null;
  function chars(s) {
    var r = [];
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) { var d = s.charCodeAt(i + 1); if (d >= 0xdc00 && d < 0xe000) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; } }
      r.push(c);
    }
    return r;
  }
  function flush(out) {
    var m = pend.length, k = rest.length, lead = 0, trail = 0, i;
    // Space glyphs at the span's ends keep their spaces where its text has none there (pdfTeX's interword
    // space glyphs before a small-capital word whose ActualText is its capitals).
    if (k && rest[0] !== 32) while (lead < m && pend[lead].ucs === 32) lead++;
    if (k && rest[k - 1] !== 32) while (trail < m - lead && pend[m - 1 - trail].ucs === 32) trail++;
    if (lead === m) lead = trail = 0;
    for (i = 0; i < lead; i++) out.showGlyph(pend[i].font, pend[i].trm, pend[i].gid, 32, pend[i].wmode);
    var n = m - lead - trail;
    for (i = 0; i < n; i++) {
      var g = pend[lead + i], a = Math.min(i, k), b = i === n - 1 ? k : Math.min(i + 1, k);
      for (var j = a; j < b; j++) out.showGlyph(g.font, g.trm, j === a ? g.gid : -1, rest[j], g.wmode);
    }
    for (i = m - trail; i < m; i++) out.showGlyph(pend[i].font, pend[i].trm, pend[i].gid, 32, pend[i].wmode);
    if (m) rest = [];
    pend = [];
  }
  function fix(text) {
    var gl = [], marks = false;
    text.walk({ showGlyph: function (font, trm, gid, ucs, wmode) {
      var m = font.getName() === 'LecternActualTextMarker';
      if (m) marks = true;
      gl.push({ font: font, trm: trm, gid: gid, ucs: ucs, wmode: wmode, mark: m });
    } });
    if (!marks && cur < 0) { lastKey = null; return text; }
    var key = gl.length + ':' + (gl.length ? gl[0].trm.join(',') + ':' + gl[gl.length - 1].trm.join(',') + ':' + gl[0].gid + ':' + gl[gl.length - 1].gid : '');
    if (key === lastKey) return lastOut;
    var out = new Text();
    for (var i = 0; i < gl.length; i++) {
      var g = gl[i];
      if (g.mark) {
        if (want === 1) { hi = g.gid - 64; want = 2; }
        else if (want === 2) {
          flush(out);
          cur = hi * 64 + (g.gid - 64);
          want = 0;
          if (cur >= 0 && cur < texts.length) rest = chars(texts[cur]);
          else cur = -1;
        } else if (g.gid === 1) want = 1;
        else if (g.gid === 2) { flush(out); cur = -1; }
        continue;
      }
      if (cur >= 0) { if (g.gid >= 0) pend.push(g); continue; }
      out.showGlyph(g.font, g.trm, g.gid, g.ucs, g.wmode);
    }
    flush(out);
    lastKey = key;
    var empty = true;
    out.walk({ showGlyph: function () { empty = false; } });
    lastOut = empty ? null : out;
    return lastOut;
  }
  return {
    fillText: function (t, ctm, cs, color, alpha, cp) { t = fix(t); if (t) dev.fillText(t, ctm, cs, color, alpha, cp); },
    strokeText: function (t, st, ctm, cs, color, alpha, cp) { t = fix(t); if (t) dev.strokeText(t, st, ctm, cs, color, alpha, cp); },
    clipText: function (t, ctm) { t = fix(t); if (t) dev.clipText(t, ctm); },
    clipStrokeText: function (t, st, ctm) { t = fix(t); if (t) dev.clipStrokeText(t, st, ctm); },
    ignoreText: function (t, ctm) { t = fix(t); if (t) dev.ignoreText(t, ctm); },
    fillImage: function (img, ctm, alpha, cp) { lastKey = null; dev.fillImage(img, ctm, alpha, cp); },
    fillImageMask: function (img, ctm, cs, color, alpha, cp) { lastKey = null; dev.fillImageMask(img, ctm, cs, color, alpha, cp); },
    fillShade: function (sh, ctm, alpha, cp) { lastKey = null; dev.fillShade(sh, ctm, alpha, cp); }
  };
}
/*
 * Marks the page's ActualText spans (lecternMarkSpans); the spans' texts, or null (the page as it was). A page
 * is looked at only when its content or its named property lists say "ActualText" (the content read as a
 * string through tmp; where that cannot be done, MuPDF's content parser says whether a span has one).
 */
function lecternActualText(doc, p, page, tmp) {
  try {
    var pageObj = doc.findPage(p), res = lecternResources(pageObj), contents = pageObj.get('Contents');
    if (!res || !contents) return null;
    var src = lecternPageContent(contents, tmp);
    if (src.s !== null && src.s.split('ActualText').length < 2 && !lecternNamedActualText(res)) return null;
    var texts = lecternSpanTexts(page, res);
    if (!texts) return null;
    // The ASCII string is tokenised by a regular expression and copied as it is; other bytes are not safe to
    // copy through a string (UTF-8 sequences are one character, a stray byte U+FFFD).
    src.ascii = src.s !== null && src.s.length === src.buf.length && !/[^\x01-\x7f]/.test(src.s);
    return lecternMarkSpans(doc, pageObj, texts, res, src);
  } catch (e) {
    return null;
  }
}
/*
 * Pages first..last-1 that may hold an ActualText span (the others are not looked at again): the pages'
 * contents joined into one Buffer, each closed by a comment, written and read back once for the range; a page
 * whose part says "ActualText", whose named property lists have one, or that the string does not reach (a
 * NUL byte ended it) is kept. Each page's content is decompressed here once and the page's /Contents becomes
 * that (unfiltered, in memory) stream, so that the page's run reads it instead of decompressing it again:
 * where the page had several streams, only if each but the last ends with a line end (then MuPDF reads the
 * joined bytes as the same tokens, whatever it puts between streams); else the page keeps its streams.
 */
function lecternCandidates(doc, first, last, tmp) {
  var keep = {}, buf = new Buffer(), p;
  try {
    for (p = first; p < last; p++) {
      var o = doc.findPage(p), c = o.get('Contents'), res = lecternResources(o);
      if (c && c.isArray()) {
        var one = new Buffer(), joined = true;
        for (var i = 0; i < c.length; i++) {
          var e = c.get(i);
          if (e && e.isStream()) {
            var b = e.readStream(), n = b.length;
            if (i < c.length - 1 && (n === 0 || (b[n - 1] !== 10 && b[n - 1] !== 13))) joined = false;
            one.writeBuffer(b);
            buf.writeBuffer(b); buf.writeByte(10);
          } else joined = false;
        }
        if (joined && c.length > 0) o.put('Contents', doc.addStream(one, doc.newDictionary()));
      } else if (c && c.isStream()) {
        var s = c.readStream();
        buf.writeBuffer(s); buf.writeByte(10);
        o.put('Contents', doc.addStream(s, doc.newDictionary()));
      }
      buf.write('%LecternPage\n');
      if (res && lecternNamedActualText(res)) keep[p] = true;
    }
    buf.save(tmp);
    var all = read(tmp);
    // The usual case first: the string reaches the end (no NUL byte cut it) and has no "ActualText" at all.
    if (all.slice(-13) === '%LecternPage\n' && all.indexOf('ActualText') < 0) return keep;
    var parts = all.split('%LecternPage');
    for (p = first; p < last; p++) if (p - first >= parts.length - 1 || parts[p - first].split('ActualText').length > 1) keep[p] = true;
  } catch (err) {
    for (p = first; p < last; p++) keep[p] = true;
  }
  return keep;
}
function lecternWritePages(doc, out, format, first, last) {
  var w = new DocumentWriter(out, format, 'preserve-images');
  var keep = lecternCandidates(doc, first, last, out + '.content');
  for (var p = first; p < last; p++) {
    var page = doc.loadPage(p);
    var spans = keep[p] ? lecternActualText(doc, p, page, out + '.content') : null;
    if (spans) page = doc.loadPage(p);
    var dev = w.beginPage(page.bound());
    page.run(spans ? lecternSpanDevice(dev, spans) : dev, Identity);
    w.endPage();
  }
  w.close();
}
`;

/** File name of the script inside the workspace. */
export const START_SCRIPT_NAME = 'lectern-start.js';

/** The script text (MuJS, ES5). */
export const START_SCRIPT = String.raw`
var doc = new Document(scriptArgs[0]);
if (doc.needsPassword()) throw new Error('password required');
var trailer = doc.getTrailer();
function show(o) {
  if (o === null || o === undefined || o.isNull()) return 'null';
  var r = o.resolve();
  return r.isNull() ? 'null' : r.toString();
}
print(show(trailer.get('Info')));
print(show(trailer.get('Encrypt')));
print(show(trailer.get('Root').get('Pages').get('Count')));
var n = doc.countPages();
var refs = [];
for (var i = 0; i < n; i++) refs.push(doc.findPage(i));
var keys = ['MediaBox', 'CropBox', 'Rotate'];
for (var k = 0; k < keys.length; k++) for (var i = 0; i < n; i++) print(show(refs[i].get(keys[k])));
function quote(s) {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t') + '"';
}
function outline(items, depth) {
  if (!items) return;
  var tabs = '';
  for (var d = 0; d < depth; d++) tabs += '\t';
  for (var k = 0; k < items.length; k++) {
    var it = items[k];
    print((it.down ? '+' : '|') + tabs + quote(it.title || '') + '\t' + (it.uri || ''));
    outline(it.down, depth + 1);
  }
}
outline(doc.loadOutline(), 1);
var last = Math.min(n, Number(scriptArgs[2]));
lecternLigatures(doc, 0, last);
lecternWritePages(doc, scriptArgs[1], 'stext.json', 0, last);
` + LIGATURES;

/** File name of the text script inside the workspace. */
export const TEXT_SCRIPT_NAME = 'lectern-text.js';

/**
 * The text layer of a page range as `mutool convert -F FORMAT -O preserve-images -o OUT input.pdf RANGE`
 * writes it (same MuPDF document writer), after LIGATURES. Arguments: input file, output file, format
 * (`stext.json` or `stext`), range (`N` or `N-M`, 1-based, last). With `stext` (XML) it then prints the
 * pages' fonts' space widths (lecternSpaceWidths; a failure there leaves the text layer as written).
 */
export const TEXT_SCRIPT = String.raw`
var doc = new Document(scriptArgs[0]);
if (doc.needsPassword()) throw new Error('password required');
var range = scriptArgs[3].split('-');
var first = Number(range[0]) - 1;
var last = Math.min(doc.countPages(), Number(range[range.length - 1]));
lecternLigatures(doc, first, last);
lecternWritePages(doc, scriptArgs[1], scriptArgs[2], first, last);
if (scriptArgs[2] === 'stext') try { lecternSpaceWidths(doc, first, last); } catch (e) { print('S!\t' + e); }
` + LIGATURES;
