// What a link shows that loopback hides (docs/links.md): blinksocks'
// benchmark chains with an AEAD cipher, with obfs-tls1.2-ticket and with
// obfs-random-padding (blinksocks' cases 5, 9, 10, 11 and 12), beside the
// rows that give TCP's own cost on the same link. Run it as
//   cipherbench run benchmark/cases/links.cases.js --link rate=100mbit --repeat 3
// and again with rate=1gbit, and without --link for loopback.
const ssBase = { name: 'ss-base' };
const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const ctr = { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } };
const tls = { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } };
const padding = { name: 'obfs-random-padding' };

export default [
  { impl: 'direct' },
  { impl: 'plain' },
  [ssBase, gcm],
  [ssBase, gcm, tls],
  [ssBase, padding, gcm],
  [ssBase, ctr, tls],
  [ssBase, padding, ctr],
];
