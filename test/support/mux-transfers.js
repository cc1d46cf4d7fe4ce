import assert from 'node:assert/strict';
import { echoTransfer } from '../../benchmark/programs/support/transfer.js';

// `connections` transfers of `size` bytes each way at once through `port`,
// as the mux wire tests (Mux.Cool, blinksocks-mux) carry them: every one
// must come back whole, and the bytes at the echo target must hash as the
// bytes sent. `transfer` adds echoTransfer's options (a first piece, a
// timeout); `beforeFarEnd(records)` runs once every byte is back, before
// the echo target's connections are awaited closed.
export async function assertCarriedAtOnce(
  echo,
  port,
  label,
  { connections, size, transfer = {}, beforeFarEnd = async () => {} },
) {
  const before = echo.received.length;
  const results = await Promise.all(
    Array.from({ length: connections }, () => echoTransfer({ port, size, ...transfer })),
  );
  for (const { sent, returned, bytesBack } of results) {
    assert.equal(bytesBack, size, `${label}: bytes back`);
    assert.equal(returned, sent, `${label}: data came back changed`);
  }
  await beforeFarEnd(echo.received.slice(before));
  const farEnd = await Promise.all(echo.received.slice(before).map((record) => record.closed));
  assert.deepEqual(
    farEnd.map((record) => record.sha256).sort(),
    results.map((result) => result.sent).sort(),
    `${label}: the bytes at the echo target are the bytes sent`,
  );
}
