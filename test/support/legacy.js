import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LEGACY_FLAG, legacyProviderStatus } from '../../lib/crypto/legacy-provider.js';
import { chainNeedsLegacyProvider } from '../../lib/chain/requirements.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// Set in the child that runs a suite file again for its legacy chains only.
const ONLY_LEGACY = 'CIPHERBENCH_TEST_LEGACY_CHAINS_ONLY';

// Registers one test that runs `fileUrl` again in a child with OpenSSL's
// legacy provider, `env` added, and passes when every test there passed.
function rerunWithLegacyProvider(fileUrl, env = {}) {
  test("(again, with OpenSSL's legacy provider, for RC4)", { timeout: 600_000 }, () => {
    // Without the runner's context variable the child reports in TAP, as a
    // run of its own, instead of to a parent that is not listening.
    const childEnv = { ...process.env, ...env };
    delete childEnv.NODE_TEST_CONTEXT;
    const args = [LEGACY_FLAG, '--test', '--test-reporter=tap', '--test-concurrency=1', fileURLToPath(fileUrl)];
    const child = spawnSync(process.execPath, args, { encoding: 'utf8', env: childEnv });
    assert.equal(child.status, 0, child.stdout + child.stderr);
    assert.match(child.stdout, /^# fail 0$/m, child.stdout);
    assert.doesNotMatch(child.stdout, /^# pass 0$/m, 'the child ran no test');
  });
}

// For a test file that runs RC4 (auth_chain) in its own process: without
// OpenSSL's legacy provider it registers one test that runs the file again
// in a child that has it, and returns false (define nothing else then).
export function withLegacyProvider(fileUrl) {
  if (legacyProviderStatus() === 'loaded') return true;
  rerunWithLegacyProvider(fileUrl);
  return false;
}

// For a suite over preset chains (test/support/suites/): the chains to
// define tests for in this process. Without the legacy provider, those that
// need it (RC4: rc4-md5-6, auth_chain) go to one test that runs the file
// again in a child that has it, and the child defines only those: each
// chain runs once, and the rest are counted and reported here, test by test.
export function chainsForThisProcess(fileUrl, chains) {
  const legacy = chains.filter(({ presets }) => chainNeedsLegacyProvider(CATALOGUE, presets));
  if (legacyProviderStatus() === 'loaded') return inLegacyChild() ? legacy : chains;
  if (legacy.length > 0) rerunWithLegacyProvider(fileUrl, { [ONLY_LEGACY]: '1' });
  return chains.filter((chain) => !legacy.includes(chain));
}

// True in that child: a file's tests that are not over its chains are
// defined in the parent alone.
export const inLegacyChild = () => process.env[ONLY_LEGACY] === '1';
