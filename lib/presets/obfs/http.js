import { randomInt } from 'node:crypto';
import { protocolError } from '../../wire/protocol-error.js';
import { DEFAULT_TEMPLATE, readTemplate } from './http-template.js';

// blinksocks' obfs-http: the client's stream opens with one of the
// template's HTTP requests, picked at random, the server's with that
// request's response; after them the bytes flow unchanged. A fixed-text
// disguise for the first glance of a middlebox, not a real HTTP exchange.
function fileProblem(file) {
  if (typeof file !== 'string' || file === '')
    return 'must be the path of a template file (request, a "------" line, response, a "======" line, ...)';
  try {
    readTemplate(file);
    return undefined;
  } catch (error) {
    return error.message;
  }
}

// Reads the header a stream must open with, one of `candidates`: returns
// { index, rest } once one is complete, null while more bytes are needed.
// Between reads it holds less than the longest candidate, and it refuses
// the stream at the first read that cannot be the start of any.
function headerReader(candidates) {
  let pending = Buffer.alloc(0);
  return (data) => {
    pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
    const index = candidates.findIndex(
      (header) => pending.length >= header.length && pending.subarray(0, header.length).equals(header),
    );
    if (index >= 0) return { index, rest: pending.subarray(candidates[index].length) };
    if (!candidates.some((header) => header.subarray(0, pending.length).equals(pending))) {
      throw protocolError('the stream does not open with an HTTP header of the obfs-http template');
    }
    return null;
  };
}

// A decode stage that strips the opening header, then passes bytes on.
// `candidates()` is asked at the first byte: the client knows the response
// to expect only once it has sent its request.
function afterHeader(candidates, onHeader) {
  let read = null;
  let done = false;
  return (data, push) => {
    if (done) return push(data);
    read ??= headerReader(candidates());
    const header = read(data);
    if (!header) return;
    done = true;
    read = null;
    onHeader(header.index);
    if (header.rest.length > 0) push(header.rest);
  };
}

export default {
  name: 'obfs-http',
  summary:
    'blinksocks HTTP disguise: each stream opens with a request (and its response) from a template file of request/response pairs',
  roles: ['disguise'],
  params: {
    file: {
      required: false,
      description:
        "template file of HTTP request/response pairs in blinksocks' format, relative to the current folder (default: lib/presets/obfs/http-default.txt, bundled)",
      check: fileProblem,
    },
  },
  prepare(params) {
    const pairs = readTemplate(params.file ?? DEFAULT_TEMPLATE);
    const requests = pairs.map((pair) => pair.request);
    // The response a server sends for each pair's request: that of the first
    // pair with the same request, as blinksocks' server looks them up.
    const responses = pairs.map(({ request }) => pairs.find((pair) => pair.request.equals(request)).response);
    return () => {
      let pair = -1;
      // Each side writes its header in front of its first bytes, in one push:
      // blinksocks' server looks for the whole request in one read.
      const opening = (header) => {
        let sent = false;
        return (data, push) => {
          if (sent) return push(data);
          sent = true;
          push(Buffer.concat([header(), data]));
        };
      };
      return {
        clientEncode: opening(() => {
          pair = randomInt(pairs.length);
          return requests[pair];
        }),
        // Before its request is sent, a client expects nothing from the server.
        clientDecode: afterHeader(
          () => (pair < 0 ? [] : [responses[pair]]),
          () => {},
        ),
        serverDecode: afterHeader(
          () => requests,
          (index) => {
            pair = index;
          },
        ),
        serverEncode: opening(() => responses[pair]),
      };
    };
  },
};
