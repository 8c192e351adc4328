;; Term-scan kernel of the sparse channel's expansion (ADR 0310), WebAssembly SIMD.
;;
;; The expansion model's terms nearest to a query's embedding are found by one dot product per term of
;; the expansion vocabulary (20,000 terms x 128 dimensions at most). This kernel computes those dot
;; products on 16-bit integer copies of the vectors (each term's vector and the query rounded to
;; integers at a fixed scale), eight products and their pairwise sums per instruction
;; (i32x4.dot_i16x8_s); src/engine/term-scan.ts bounds the rounding error, keeps every term whose bound
;; reaches the best ones and scores those again in floating point, so the chosen terms and their
;; similarities are exactly those of the floating-point scan over every term.
;;
;; Layout in this module's memory (src/engine/term-scan.ts writes it):
;;   q:    the query's dims 16-bit integers;
;;   rows: m rows of dims 16-bit integers, one after another;
;;   out:  m 32-bit integer dot products.
;; The scales keep every partial sum inside 32 bits (term-scan.ts: sum |q_j| |x_j| < 2^31).
(module
  (memory (import "env" "memory") 1)

  ;; dots(q, rows, m, dims, out): the integer dot products of q with m rows (dims a multiple of 16).
  (func (export "dots") (param $q i32) (param $rows i32) (param $m i32) (param $dims i32) (param $out i32)
    (local $j i32) (local $end i32) (local $a v128) (local $b v128)
    (local.set $end (i32.shl (local.get $dims) (i32.const 1)))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $m)))
        (local.set $a (v128.const i64x2 0 0))
        (local.set $b (v128.const i64x2 0 0))
        (local.set $j (i32.const 0))
        ;; 16 dimensions per step, two independent accumulators
        (loop $sixteen
          (local.set $a (i32x4.add (local.get $a)
            (i32x4.dot_i16x8_s (v128.load (i32.add (local.get $q) (local.get $j))) (v128.load (i32.add (local.get $rows) (local.get $j))))))
          (local.set $b (i32x4.add (local.get $b)
            (i32x4.dot_i16x8_s (v128.load offset=16 (i32.add (local.get $q) (local.get $j))) (v128.load offset=16 (i32.add (local.get $rows) (local.get $j))))))
          (br_if $sixteen (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 32))) (local.get $end))))
        (local.set $a (i32x4.add (local.get $a) (local.get $b)))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
            (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a)))))
        (local.set $rows (i32.add (local.get $rows) (local.get $end)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $m (i32.sub (local.get $m) (i32.const 1)))
        (br $row))))
)
