// The script `mutool run` executes at the start of a PDF conversion: in one process it prints the document
// facts exactly as `mutool show input.pdf <SHOW_PATHS_WITH_BOXES>` does (so parseShowWithBoxes reads both)
// and writes the first pages' structured text exactly as `mutool convert -F stext.json -O preserve-images`
// does (same MuPDF document writer). One process instead of two saves a process start, MuPDF's start-up
// and a second parse of the document for every PDF. The script is data for the unmodified mutool
// program (MuJS, ECMAScript 5); mutool stays a separate process.
//
// Arguments: input file, output JSON file, number of leading pages to extract.
// Any failure (password, damaged page tree, a page that cannot be read) throws, so mutool exits non-zero
// and the caller falls back to the separate `mutool show` / `mutool pages` / `mutool convert` calls.

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
var w = new DocumentWriter(scriptArgs[1], 'stext.json', 'preserve-images');
for (var p = 0; p < last; p++) {
  var page = doc.loadPage(p);
  var dev = w.beginPage(page.bound());
  page.run(dev, Identity);
  w.endPage();
}
w.close();
`;
