;; Fast-scan grading kernel of the dense `quantized` path (ADR 0140), WebAssembly SIMD.
;;
;; Grades sign codes against 4-bit look-up tables held in registers, 16 documents per instruction, as in
;; FAISS's PQ fast scan ("Quicker ADC", André et al.). A document's sign code has one bit per dimension;
;; each code byte is two 4-bit nibbles (dimensions 8b..8b+3 and 8b+4..8b+7 of byte b). The query is turned
;; into one 16-entry table of unsigned 8-bit values per nibble (entry v: the query's weights over the
;; nibble's 4 dimensions, each added where bit j of v is set and subtracted where it is not, shifted to be
;; non-negative and scaled so that an entry is at most 127). A document's grade is the sum of its nibbles'
;; entries: an unsigned 16-bit number that grows with q . sign(x).
;;
;; Layout in this module's memory (src/engine/fast-scan.ts writes it):
;;   tables: for each code byte b, 32 bytes: the low nibble's table (16 bytes), then the high nibble's.
;;   codes:  blocks of 16 documents; block k holds, for each code byte b, 16 bytes: byte b of documents
;;           16k .. 16k+15 (the code rows transposed per block; a short last block is padded with zeros).
;;   grades: 16 unsigned 16-bit grades per block, in document order (0xffff: not eligible).
;;   present: one byte per document, 1 when it has a vector.
;;   hist, out: the histogram of one query's grades and a buffer of selected document numbers.
;;
;; Per code byte and block: one load, a mask and a shift to split the nibbles, two swizzles (the table
;; look-ups of 16 documents each), one 8-bit add (two entries of at most 127 cannot overflow a byte) and
;; two widening adds into 16-bit accumulators (at most 2 x 127 per byte: 258 code bytes, 2,064
;; dimensions, before a 16-bit grade could overflow; fast-scan.ts refuses more).
(module
  (memory (import "env" "memory") 1)

  ;; grade(tables, codes, blocks, bytes, grades): grades every document of `blocks` blocks of
  ;; `bytes` code bytes per document (bytes >= 1).
  (func (export "grade")
    (param $tables i32) (param $codes i32) (param $blocks i32) (param $bytes i32) (param $grades i32)
    (local $t i32) (local $b i32) (local $v v128) (local $r v128) (local $lo v128) (local $hi v128)
    (local $mask v128)
    (local.set $mask (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
    (block $done
      (loop $block
        (br_if $done (i32.eqz (local.get $blocks)))
        (local.set $lo (v128.const i64x2 0 0))
        (local.set $hi (v128.const i64x2 0 0))
        (local.set $t (local.get $tables))
        (local.set $b (local.get $bytes))
        (loop $byte
          (local.set $v (v128.load (local.get $codes)))
          ;; the low nibbles' entries plus the high nibbles' entries, 16 documents at once
          (local.set $r
            (i8x16.add
              (i8x16.swizzle (v128.load (local.get $t)) (v128.and (local.get $v) (local.get $mask)))
              (i8x16.swizzle (v128.load offset=16 (local.get $t)) (i8x16.shr_u (local.get $v) (i32.const 4)))))
          ;; documents 0..7 of the block in $lo, 8..15 in $hi
          (local.set $lo (i16x8.add (local.get $lo) (i16x8.extend_low_i8x16_u (local.get $r))))
          (local.set $hi (i16x8.add (local.get $hi) (i16x8.extend_high_i8x16_u (local.get $r))))
          (local.set $codes (i32.add (local.get $codes) (i32.const 16)))
          (local.set $t (i32.add (local.get $t) (i32.const 32)))
          (br_if $byte (local.tee $b (i32.sub (local.get $b) (i32.const 1)))))
        (v128.store (local.get $grades) (local.get $lo))
        (v128.store offset=16 (local.get $grades) (local.get $hi))
        (local.set $grades (i32.add (local.get $grades) (i32.const 32)))
        (local.set $blocks (i32.sub (local.get $blocks) (i32.const 1)))
        (br $block))))

  ;; histogram(grades, present, n, shift, hist, bins): counts the grades of the documents that have a
  ;; vector in hist[grade >> shift] (bins 32-bit counters, zeroed first) and sets the grades of the
  ;; others to 0xffff; returns the documents counted.
  (func (export "histogram")
    (param $grades i32) (param $present i32) (param $n i32) (param $shift i32) (param $hist i32) (param $bins i32)
    (result i32)
    (local $d i32) (local $counted i32) (local $h i32)
    (memory.fill (local.get $hist) (i32.const 0) (i32.shl (local.get $bins) (i32.const 2)))
    (block $done
      (loop $doc
        (br_if $done (i32.ge_u (local.get $d) (local.get $n)))
        (if (i32.load8_u (i32.add (local.get $present) (local.get $d)))
          (then
            (local.set $h
              (i32.add (local.get $hist)
                (i32.shl
                  (i32.shr_u (i32.load16_u (i32.add (local.get $grades) (i32.shl (local.get $d) (i32.const 1)))) (local.get $shift))
                  (i32.const 2))))
            (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
            (local.set $counted (i32.add (local.get $counted) (i32.const 1))))
          (else
            (i32.store16 (i32.add (local.get $grades) (i32.shl (local.get $d) (i32.const 1))) (i32.const 0xffff))))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br $doc)))
    (local.get $counted))

  ;; Where `select` stopped: the next document to look at and the room left at the cut.
  (global $next (export "next") (mut i32) (i32.const 0))
  (global $room (export "room") (mut i32) (i32.const 0))

  ;; select(grades, from, to, shift, cut, room, out, cap): writes to out (32-bit) the numbers of the
  ;; documents from..to-1, in order, whose grade >> shift is above `cut` (-1: every one), and of the
  ;; first `room` whose grade >> shift equals it (0xffff: not eligible); stops after `cap` of them.
  ;; Returns how many it wrote and leaves the next document in `next` and the room left in `room`.
  (func (export "select")
    (param $grades i32) (param $from i32) (param $to i32) (param $shift i32) (param $cut i32) (param $room i32)
    (param $out i32) (param $cap i32) (result i32)
    (local $d i32) (local $g i32) (local $count i32)
    (local.set $d (local.get $from))
    (block $done
      (loop $doc
        (br_if $done (i32.ge_u (local.get $d) (local.get $to)))
        (br_if $done (i32.ge_u (local.get $count) (local.get $cap)))
        (local.set $g (i32.load16_u (i32.add (local.get $grades) (i32.shl (local.get $d) (i32.const 1)))))
        (if (i32.ne (local.get $g) (i32.const 0xffff))
          (then
            (local.set $g (i32.shr_u (local.get $g) (local.get $shift)))
            (if (i32.gt_s (local.get $g) (local.get $cut))
              (then
                (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $d))
                (local.set $count (i32.add (local.get $count) (i32.const 1))))
              (else
                (if (i32.and (i32.eq (local.get $g) (local.get $cut)) (i32.gt_u (local.get $room) (i32.const 0)))
                  (then
                    (local.set $room (i32.sub (local.get $room) (i32.const 1)))
                    (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $d))
                    (local.set $count (i32.add (local.get $count) (i32.const 1)))))))))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br $doc)))
    (global.set $next (local.get $d))
    (global.set $room (local.get $room))
    (local.get $count))

  ;; dots(q, rows, m, dims, out): the dot products of the query (dims 32-bit floats at q) with m rows of
  ;; dims floats each (at rows, one after another) into out (64-bit floats), dims a multiple of 4. The
  ;; arithmetic is that of doc-vectors.ts `dot`, so the scores are the same bit for bit: products and sums
  ;; in 64 bits, four running sums s0..s3 over dimensions j = 0, 1, 2, 3 (mod 4), then (s0 + s1) +
  ;; (s2 + s3); here s0, s1 are the lanes of $a and s2, s3 those of $b.
  (func (export "dots") (param $q i32) (param $rows i32) (param $m i32) (param $dims i32) (param $out i32)
    (local $j i32) (local $a v128) (local $b v128) (local $qv v128) (local $xv v128) (local $end i32)
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $m)))
        (local.set $a (v128.const i64x2 0 0))
        (local.set $b (v128.const i64x2 0 0))
        (local.set $j (i32.const 0))
        (local.set $end (i32.shl (local.get $dims) (i32.const 2)))
        (loop $four
          (local.set $qv (v128.load (i32.add (local.get $q) (local.get $j))))
          (local.set $xv (v128.load (i32.add (local.get $rows) (local.get $j))))
          (local.set $a (f64x2.add (local.get $a)
            (f64x2.mul (f64x2.promote_low_f32x4 (local.get $qv)) (f64x2.promote_low_f32x4 (local.get $xv)))))
          (local.set $b (f64x2.add (local.get $b)
            (f64x2.mul
              (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $qv) (local.get $qv)))
              (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $xv) (local.get $xv))))))
          (br_if $four (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 16))) (local.get $end))))
        (f64.store (local.get $out)
          (f64.add
            (f64.add (f64x2.extract_lane 0 (local.get $a)) (f64x2.extract_lane 1 (local.get $a)))
            (f64.add (f64x2.extract_lane 0 (local.get $b)) (f64x2.extract_lane 1 (local.get $b)))))
        (local.set $rows (i32.add (local.get $rows) (local.get $end)))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $m (i32.sub (local.get $m) (i32.const 1)))
        (br $row))))

  ;; idots(q, rows, docs, m, dims, out): the integer dot products of the query (dims 16-bit integers at q)
  ;; with the m rows named by docs (m 32-bit document numbers) of the segment's 8-bit rows (dims bytes per
  ;; document, one after another, at `rows`) into out (m 32-bit integers), dims a multiple of 16. Each 8-bit
  ;; half-row is widened to 16 bits on load (v128.load8x8_s) and multiplied with i32x4.dot_i16x8_s; the
  ;; caller's scales keep |sum| < 2^31 (fast-scan.ts: dims x max|q| x 127 < 2^31). The dense channel's
  ;; rescoring pool is scored here instead of with the float rows (ADR 0314): 128 bytes a document at 128
  ;; dimensions instead of 512, read where they lie, with an error bound that decides which candidates
  ;; still need their float dot product.
  (func (export "idots") (param $q i32) (param $rows i32) (param $docs i32) (param $m i32) (param $dims i32) (param $out i32)
    (local $j i32) (local $r i32) (local $qj i32) (local $a v128) (local $b v128)
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $m)))
        (local.set $r (i32.add (local.get $rows) (i32.mul (i32.load (local.get $docs)) (local.get $dims))))
        (local.set $a (v128.const i64x2 0 0))
        (local.set $b (v128.const i64x2 0 0))
        (local.set $j (i32.const 0))
        ;; 16 dimensions per step: 8 in $a, the next 8 in $b
        (loop $sixteen
          (local.set $qj (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1))))
          (local.set $a (i32x4.add (local.get $a)
            (i32x4.dot_i16x8_s (v128.load (local.get $qj)) (v128.load8x8_s (i32.add (local.get $r) (local.get $j))))))
          (local.set $b (i32x4.add (local.get $b)
            (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qj)) (v128.load8x8_s offset=8 (i32.add (local.get $r) (local.get $j))))))
          (br_if $sixteen (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 16))) (local.get $dims))))
        (local.set $a (i32x4.add (local.get $a) (local.get $b)))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
            (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a)))))
        (local.set $docs (i32.add (local.get $docs) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $m (i32.sub (local.get $m) (i32.const 1)))
        (br $row))))
)
