;; WebSocket masking (RFC 6455 5.3) in WebAssembly: an XOR with a 4-byte key,
;; 16 bytes at a time. In JavaScript the word-at-a-time loop of ws.js ran at
;; about 1 GB/s on this project's machine, a client's whole relay budget at
;; a gigabit; with SIMD it is memory-bound.
;;
;; Memory: the caller copies up to 64 KiB of bytes to offset 0, calls $mask,
;; and copies them back; the page after the 64 KiB takes the rounding up to
;; 16 bytes.
;;
;; Compiled by `npm run build:wasm` into ws-mask-bytes.js; a test checks that
;; the embedded bytes are this file's.
(module
  (memory (export "memory") 2)
  ;; XORs bytes [0, n) (and the rest of the last 16) with the little-endian
  ;; word $key repeated: byte j with the key's byte j mod 4.
  (func (export "mask") (param $n i32) (param $key i32)
    (local $at i32)
    (local $word v128)
    (local.set $word (i32x4.splat (local.get $key)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $at) (local.get $n)))
        (v128.store (local.get $at) (v128.xor (v128.load (local.get $at)) (local.get $word)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $next)))))
