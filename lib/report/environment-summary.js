// @ts-check
import { casesFileRow } from './cases-source.js';
import { linkLabel } from './link-label.js';
import { formatBytes } from './units.js';

// The machine and run settings in a few labelled rows, for exports that go
// into an issue or a browser (Markdown, HTML), where the text report's full
// header would drown the ranking. Enough to tell two machines apart.
export function environmentRows(result) {
  const { environment: env, options } = result;
  const cores =
    env.cpu.physicalCores && env.cpu.physicalCores !== env.cpu.cores
      ? `${env.cpu.cores} cores (${env.cpu.physicalCores} physical)`
      : `${env.cpu.cores} cores`;
  const aes = env.cpu.aes === null ? 'AES unknown' : env.cpu.aes ? 'AES' : 'no AES';
  const run = [
    `${options.duration} s a case`,
    `${options.parallel} ${options.parallel === 1 ? 'stream' : 'streams'}`,
    options.repeat === 1 ? '1 run a case' : `median of ${options.repeat} runs a case`,
    ...(options.mode ? [`${options.mode} mode`] : []),
  ].join(', ');
  return [
    ['cipherbench', result.tool.version],
    ['CPU', `${env.cpu.model}, ${cores}, ${aes}`],
    ['Memory', formatBytes(env.memory)],
    ['OS', `${env.os.distro} (${env.os.type} ${env.os.release}, ${env.os.arch})`],
    ['Node.js', `${env.node.node} (OpenSSL ${env.node.openssl ?? 'unknown'})`],
    ['iperf3', env.iperf3.version ?? (env.iperf3.path ? 'unknown' : 'not found')],
    ...(env.peers ? [['Peers', peersLine(env.peers)]] : []),
    // Results from before the built-in engine (all iperf3) have no row.
    ...(options.engine ? [['Engine', options.engine === 'node' ? 'node (built in)' : options.engine]] : []),
    ...(options.link ? [['Link', linkLabel(options.link)]] : []),
    ...(env.remote
      ? [
          [
            'Server host',
            `${env.remote.destination}: ${env.remote.cpu.model}, ${env.remote.cpu.cores} cores, ${formatBytes(env.remote.memory)}, ${env.remote.os.distro}, Node.js ${env.remote.node.node}`,
          ],
        ]
      : []),
    ['Run', run],
    ...(options.casesFile ? [['Cases', casesFileRow(options)]] : []),
    ['Started', result.startedAt],
  ];
}

// 'sing-box 1.14.1, xray 26.3.27': the reference rows' programs as they
// said their versions.
const peersLine = (peers) =>
  Object.entries(peers)
    .map(([impl, version]) => `${impl} ${version}`)
    .join(', ');
