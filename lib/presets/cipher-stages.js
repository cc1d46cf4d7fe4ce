// The stages of a cipher whose two ends do the same thing: each encodes
// what it sends and decodes what it receives, so the client and the server
// share one encoder and one decoder a connection. decode.ended says whether
// the peer's FIN came between records (a cut record is an error, not an end).
export const symmetricCipherStages = (encode, decode) => ({
  clientEncode: encode,
  serverEncode: encode,
  clientDecode: decode,
  serverDecode: decode,
  decodeEnded: decode.ended,
});
