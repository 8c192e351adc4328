// The script `mutool run` executes at the start of a PDF conversion: in one process it prints the document
// facts exactly as `mutool show input.pdf <SHOW_PATHS_WITH_BOXES>` does (so parseShowWithBoxes reads both)
// and writes the first pages' structured text exactly as `mutool convert -F stext.json -O preserve-images`
// does (same MuPDF document writer). One process instead of two saves a process start, MuPDF's start-up
// and a second parse of the document for every PDF. The script is data for the unmodified mutool
// program (MuJS, ECMAScript 5); mutool stays a separate process.
//
// Arguments: input file, output JSON file, number of leading pages to extract.
// Both scripts first give ligature glyphs their letters (LIGATURES below), which `mutool convert` cannot.
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
function lecternWritePages(doc, out, format, first, last) {
  var w = new DocumentWriter(out, format, 'preserve-images');
  for (var p = first; p < last; p++) {
    var page = doc.loadPage(p);
    var dev = w.beginPage(page.bound());
    page.run(dev, Identity);
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
