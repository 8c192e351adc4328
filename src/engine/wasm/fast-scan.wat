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
;;   grades: 16 unsigned 16-bit grades per block, in document order.
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
)
