import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LEGACY_FLAG, legacyProviderStatus } from '../../lib/crypto/legacy-provider.js';

// For a test file that runs RC4 (auth_chain) in its own process: without
// OpenSSL's legacy provider it registers one test that runs the file again
// in a child that has it, and returns false (define nothing else then).
export function withLegacyProvider(fileUrl) {
  if (legacyProviderStatus() === 'loaded') return true;
  test('(again, with OpenSSL\'s legacy provider, for RC4)', { timeout: 600_000 }, () => {
    // Without the runner's context variable the child reports in TAP, as a
    // run of its own, instead of to a parent that is not listening.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const args = [LEGACY_FLAG, '--test', '--test-reporter=tap', '--test-concurrency=1', fileURLToPath(fileUrl)];
    const child = spawnSync(process.execPath, args, { encoding: 'utf8', env });
    assert.equal(child.status, 0, child.stdout + child.stderr);
    assert.match(child.stdout, /^# fail 0$/m, child.stdout);
    assert.doesNotMatch(child.stdout, /^# pass 0$/m, 'the child ran no test');
  });
  return false;
}
