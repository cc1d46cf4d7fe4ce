;; Poly1305 (RFC 8439, section 2.5) in WebAssembly, for MACs over whole
;; payloads, where the JavaScript one (poly1305.js) is the bottleneck.
;;
;; The poly1305-donna layout: five 26-bit limbs held in i64, so a product of
;; a limb (below 2^27) and 5 times a limb of r (below 2^29) stays under 2^56
;; and a sum of five under 2^59, exact without any splitting.
;;
;; Memory (the caller writes and reads it through the exported memory):
;;   0..32   the one-time key: r (clamped here), then s
;;   32..48  the tag, written by $finish
;;   64..    message blocks, placed by the caller
;; The state between calls lives in globals, so one MAC runs at a time (the
;; caller runs each one synchronously from init to finish).
;;
;; Not constant-time (the final selection is a branch): fine for a benchmark
;; relay on loopback, said here so nobody mistakes it for a hardened
;; implementation.
;;
;; Compiled by `npm run build:wasm` into poly1305-wasm-bytes.js; a test checks
;; that the embedded bytes are this file's.
(module
  (memory (export "memory") 1)

  (global $r0 (mut i64) (i64.const 0))
  (global $r1 (mut i64) (i64.const 0))
  (global $r2 (mut i64) (i64.const 0))
  (global $r3 (mut i64) (i64.const 0))
  (global $r4 (mut i64) (i64.const 0))
  (global $h0 (mut i64) (i64.const 0))
  (global $h1 (mut i64) (i64.const 0))
  (global $h2 (mut i64) (i64.const 0))
  (global $h3 (mut i64) (i64.const 0))
  (global $h4 (mut i64) (i64.const 0))

  ;; Reads r from the key at 0, clamped (RFC 8439, 2.5.1), and zeroes h.
  ;; Each limb is 26 bits read from a 32-bit load at byte 0, 3, 6, 9 or 12.
  (func (export "init")
    (global.set $r0 (i64.and (i64.load32_u (i32.const 0)) (i64.const 0x3ffffff)))
    (global.set $r1 (i64.and (i64.shr_u (i64.load32_u (i32.const 3)) (i64.const 2)) (i64.const 0x3ffff03)))
    (global.set $r2 (i64.and (i64.shr_u (i64.load32_u (i32.const 6)) (i64.const 4)) (i64.const 0x3ffc0ff)))
    (global.set $r3 (i64.and (i64.shr_u (i64.load32_u (i32.const 9)) (i64.const 6)) (i64.const 0x3f03fff)))
    (global.set $r4 (i64.and (i64.shr_u (i64.load32_u (i32.const 12)) (i64.const 8)) (i64.const 0x00fffff)))
    (global.set $h0 (i64.const 0))
    (global.set $h1 (i64.const 0))
    (global.set $h2 (i64.const 0))
    (global.set $h3 (i64.const 0))
    (global.set $h4 (i64.const 0)))

  ;; h = (h + block) * r mod 2^130 - 5 for each 16-byte block from $at to
  ;; $end; $hibit is 2^128 (as 2^24 in the top limb) for a whole block, 0
  ;; for the padded last one.
  (func $process (param $at i32) (param $end i32) (param $hibit i64)
    (local $r0 i64) (local $r1 i64) (local $r2 i64) (local $r3 i64) (local $r4 i64)
    (local $s1 i64) (local $s2 i64) (local $s3 i64) (local $s4 i64)
    (local $h0 i64) (local $h1 i64) (local $h2 i64) (local $h3 i64) (local $h4 i64)
    (local $d0 i64) (local $d1 i64) (local $d2 i64) (local $d3 i64) (local $d4 i64)
    (local $c i64)
    (local.set $r0 (global.get $r0))
    (local.set $r1 (global.get $r1))
    (local.set $r2 (global.get $r2))
    (local.set $r3 (global.get $r3))
    (local.set $r4 (global.get $r4))
    ;; 2^130 = 5 mod p: a product's part past 2^130 folds back times 5.
    (local.set $s1 (i64.mul (local.get $r1) (i64.const 5)))
    (local.set $s2 (i64.mul (local.get $r2) (i64.const 5)))
    (local.set $s3 (i64.mul (local.get $r3) (i64.const 5)))
    (local.set $s4 (i64.mul (local.get $r4) (i64.const 5)))
    (local.set $h0 (global.get $h0))
    (local.set $h1 (global.get $h1))
    (local.set $h2 (global.get $h2))
    (local.set $h3 (global.get $h3))
    (local.set $h4 (global.get $h4))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $h0 (i64.add (local.get $h0)
          (i64.and (i64.load32_u (local.get $at)) (i64.const 0x3ffffff))))
        (local.set $h1 (i64.add (local.get $h1)
          (i64.and (i64.shr_u (i64.load32_u offset=3 (local.get $at)) (i64.const 2)) (i64.const 0x3ffffff))))
        (local.set $h2 (i64.add (local.get $h2)
          (i64.and (i64.shr_u (i64.load32_u offset=6 (local.get $at)) (i64.const 4)) (i64.const 0x3ffffff))))
        (local.set $h3 (i64.add (local.get $h3)
          (i64.and (i64.shr_u (i64.load32_u offset=9 (local.get $at)) (i64.const 6)) (i64.const 0x3ffffff))))
        (local.set $h4 (i64.add (local.get $h4)
          (i64.or (i64.shr_u (i64.load32_u offset=12 (local.get $at)) (i64.const 8)) (local.get $hibit))))

        (local.set $d0 (i64.add (i64.add (i64.add (i64.add
          (i64.mul (local.get $h0) (local.get $r0))
          (i64.mul (local.get $h1) (local.get $s4)))
          (i64.mul (local.get $h2) (local.get $s3)))
          (i64.mul (local.get $h3) (local.get $s2)))
          (i64.mul (local.get $h4) (local.get $s1))))
        (local.set $d1 (i64.add (i64.add (i64.add (i64.add
          (i64.mul (local.get $h0) (local.get $r1))
          (i64.mul (local.get $h1) (local.get $r0)))
          (i64.mul (local.get $h2) (local.get $s4)))
          (i64.mul (local.get $h3) (local.get $s3)))
          (i64.mul (local.get $h4) (local.get $s2))))
        (local.set $d2 (i64.add (i64.add (i64.add (i64.add
          (i64.mul (local.get $h0) (local.get $r2))
          (i64.mul (local.get $h1) (local.get $r1)))
          (i64.mul (local.get $h2) (local.get $r0)))
          (i64.mul (local.get $h3) (local.get $s4)))
          (i64.mul (local.get $h4) (local.get $s3))))
        (local.set $d3 (i64.add (i64.add (i64.add (i64.add
          (i64.mul (local.get $h0) (local.get $r3))
          (i64.mul (local.get $h1) (local.get $r2)))
          (i64.mul (local.get $h2) (local.get $r1)))
          (i64.mul (local.get $h3) (local.get $r0)))
          (i64.mul (local.get $h4) (local.get $s4))))
        (local.set $d4 (i64.add (i64.add (i64.add (i64.add
          (i64.mul (local.get $h0) (local.get $r4))
          (i64.mul (local.get $h1) (local.get $r3)))
          (i64.mul (local.get $h2) (local.get $r2)))
          (i64.mul (local.get $h3) (local.get $r1)))
          (i64.mul (local.get $h4) (local.get $r0))))

        ;; Carry back to 26 bits per limb; the carry out of the top limb
        ;; folds into h0 times 5, and h0's own carry into h1.
        (local.set $c (i64.shr_u (local.get $d0) (i64.const 26)))
        (local.set $h0 (i64.and (local.get $d0) (i64.const 0x3ffffff)))
        (local.set $d1 (i64.add (local.get $d1) (local.get $c)))
        (local.set $c (i64.shr_u (local.get $d1) (i64.const 26)))
        (local.set $h1 (i64.and (local.get $d1) (i64.const 0x3ffffff)))
        (local.set $d2 (i64.add (local.get $d2) (local.get $c)))
        (local.set $c (i64.shr_u (local.get $d2) (i64.const 26)))
        (local.set $h2 (i64.and (local.get $d2) (i64.const 0x3ffffff)))
        (local.set $d3 (i64.add (local.get $d3) (local.get $c)))
        (local.set $c (i64.shr_u (local.get $d3) (i64.const 26)))
        (local.set $h3 (i64.and (local.get $d3) (i64.const 0x3ffffff)))
        (local.set $d4 (i64.add (local.get $d4) (local.get $c)))
        (local.set $c (i64.shr_u (local.get $d4) (i64.const 26)))
        (local.set $h4 (i64.and (local.get $d4) (i64.const 0x3ffffff)))
        (local.set $h0 (i64.add (local.get $h0) (i64.mul (local.get $c) (i64.const 5))))
        (local.set $c (i64.shr_u (local.get $h0) (i64.const 26)))
        (local.set $h0 (i64.and (local.get $h0) (i64.const 0x3ffffff)))
        (local.set $h1 (i64.add (local.get $h1) (local.get $c)))

        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $next)))
    (global.set $h0 (local.get $h0))
    (global.set $h1 (local.get $h1))
    (global.set $h2 (local.get $h2))
    (global.set $h3 (local.get $h3))
    (global.set $h4 (local.get $h4)))

  ;; Whole 16-byte blocks from $at to $end ($end - $at a multiple of 16).
  (func (export "blocks") (param $at i32) (param $end i32)
    (call $process (local.get $at) (local.get $end) (i64.const 0x1000000)))

  ;; The last $n (0..15) bytes at $at, then the tag to 32. A short block gets
  ;; a 1 byte after it and zeroes to 16 bytes instead of 2^128; the 16 bytes
  ;; at $at are overwritten.
  (func (export "finish") (param $at i32) (param $n i32)
    (local $i i32)
    (local $h0 i64) (local $h1 i64) (local $h2 i64) (local $h3 i64) (local $h4 i64)
    (local $g0 i64) (local $g1 i64) (local $g2 i64) (local $g3 i64) (local $g4 i64)
    (local $c i64) (local $acc i64)
    (if (local.get $n)
      (then
        (i32.store8 (i32.add (local.get $at) (local.get $n)) (i32.const 1))
        (local.set $i (i32.add (local.get $n) (i32.const 1)))
        (block $padded
          (loop $pad
            (br_if $padded (i32.ge_u (local.get $i) (i32.const 16)))
            (i32.store8 (i32.add (local.get $at) (local.get $i)) (i32.const 0))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $pad)))
        (call $process (local.get $at) (i32.add (local.get $at) (i32.const 16)) (i64.const 0))))

    ;; Carry fully: after $process only h1 can exceed 26 bits.
    (local.set $h0 (global.get $h0))
    (local.set $h1 (global.get $h1))
    (local.set $h2 (global.get $h2))
    (local.set $h3 (global.get $h3))
    (local.set $h4 (global.get $h4))
    (local.set $c (i64.shr_u (local.get $h1) (i64.const 26)))
    (local.set $h1 (i64.and (local.get $h1) (i64.const 0x3ffffff)))
    (local.set $h2 (i64.add (local.get $h2) (local.get $c)))
    (local.set $c (i64.shr_u (local.get $h2) (i64.const 26)))
    (local.set $h2 (i64.and (local.get $h2) (i64.const 0x3ffffff)))
    (local.set $h3 (i64.add (local.get $h3) (local.get $c)))
    (local.set $c (i64.shr_u (local.get $h3) (i64.const 26)))
    (local.set $h3 (i64.and (local.get $h3) (i64.const 0x3ffffff)))
    (local.set $h4 (i64.add (local.get $h4) (local.get $c)))
    (local.set $c (i64.shr_u (local.get $h4) (i64.const 26)))
    (local.set $h4 (i64.and (local.get $h4) (i64.const 0x3ffffff)))
    (local.set $h0 (i64.add (local.get $h0) (i64.mul (local.get $c) (i64.const 5))))
    (local.set $c (i64.shr_u (local.get $h0) (i64.const 26)))
    (local.set $h0 (i64.and (local.get $h0) (i64.const 0x3ffffff)))
    (local.set $h1 (i64.add (local.get $h1) (local.get $c)))

    ;; h mod p: g = h + 5 - 2^130 is the result when it is not negative
    ;; (h is below 2p here, so one subtraction is enough).
    (local.set $g0 (i64.add (local.get $h0) (i64.const 5)))
    (local.set $c (i64.shr_u (local.get $g0) (i64.const 26)))
    (local.set $g0 (i64.and (local.get $g0) (i64.const 0x3ffffff)))
    (local.set $g1 (i64.add (local.get $h1) (local.get $c)))
    (local.set $c (i64.shr_u (local.get $g1) (i64.const 26)))
    (local.set $g1 (i64.and (local.get $g1) (i64.const 0x3ffffff)))
    (local.set $g2 (i64.add (local.get $h2) (local.get $c)))
    (local.set $c (i64.shr_u (local.get $g2) (i64.const 26)))
    (local.set $g2 (i64.and (local.get $g2) (i64.const 0x3ffffff)))
    (local.set $g3 (i64.add (local.get $h3) (local.get $c)))
    (local.set $c (i64.shr_u (local.get $g3) (i64.const 26)))
    (local.set $g3 (i64.and (local.get $g3) (i64.const 0x3ffffff)))
    (local.set $g4 (i64.sub (i64.add (local.get $h4) (local.get $c)) (i64.const 0x4000000)))
    (if (i64.ge_s (local.get $g4) (i64.const 0))
      (then
        (local.set $h0 (local.get $g0))
        (local.set $h1 (local.get $g1))
        (local.set $h2 (local.get $g2))
        (local.set $h3 (local.get $g3))
        (local.set $h4 (local.get $g4))))

    ;; tag = (h + s) mod 2^128, as four little-endian 32-bit words. Limb i
    ;; sits at bit 26i, so in word w it is shifted by 26i - 32w; adding
    ;; (not or-ing) into one accumulator carries whatever overlaps.
    (local.set $acc (i64.add (i64.add (local.get $h0) (i64.shl (local.get $h1) (i64.const 26)))
      (i64.load32_u (i32.const 16))))
    (i32.store (i32.const 32) (i32.wrap_i64 (local.get $acc)))
    (local.set $acc (i64.add (i64.add (i64.shr_u (local.get $acc) (i64.const 32))
      (i64.shl (local.get $h2) (i64.const 20))) (i64.load32_u (i32.const 20))))
    (i32.store (i32.const 36) (i32.wrap_i64 (local.get $acc)))
    (local.set $acc (i64.add (i64.add (i64.shr_u (local.get $acc) (i64.const 32))
      (i64.shl (local.get $h3) (i64.const 14))) (i64.load32_u (i32.const 24))))
    (i32.store (i32.const 40) (i32.wrap_i64 (local.get $acc)))
    (local.set $acc (i64.add (i64.add (i64.shr_u (local.get $acc) (i64.const 32))
      (i64.shl (local.get $h4) (i64.const 8))) (i64.load32_u (i32.const 28))))
    (i32.store (i32.const 44) (i32.wrap_i64 (local.get $acc)))))
