// @ts-check
import { AEAD_2022_METHODS, newPsk } from '../crypto/aead-2022-methods.js';
import { inputError } from '../errors.js';

// Shadowsocks 2022 takes a random base64 key of the method's length, never a
// password: this prints a fresh one for `relay --key`, ssserver -k or a
// client's config.
export function registerKeyCommand(program) {
  const methods = Object.keys(AEAD_2022_METHODS);
  program
    .command('key')
    .description('print a fresh base64 pre-shared key for a Shadowsocks 2022 method')
    .requiredOption('--method <method>', `one of ${methods.join(', ')}`)
    .action((options) => {
      if (!AEAD_2022_METHODS[options.method]) {
        throw inputError(
          `--method: ${JSON.stringify(options.method)} is not a Shadowsocks 2022 method (the others take any password); valid: ${methods.join(', ')}`,
        );
      }
      process.stdout.write(`${newPsk(options.method)}\n`);
    });
}
