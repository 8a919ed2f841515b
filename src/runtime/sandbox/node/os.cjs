/**
 * `os`: stable placeholder values, the same in every isolate: a function
 * sees no host. Linux on x64 (as on Lambda), one CPU, `/tmp`, `localhost`,
 * the host's `constants` (recorded at build: SWITCHYARD_OS_CONSTANTS).
 */
'use strict';
/* global SWITCHYARD_OS_CONSTANTS */
const start = Date.now();
const os = {
  EOL: '\n',
  devNull: '/dev/null',
  constants: SWITCHYARD_OS_CONSTANTS,
  arch: () => 'x64',
  machine: () => 'x86_64',
  platform: () => 'linux',
  type: () => 'Linux',
  release: () => '5.10.0',
  version: () => '#1 SMP',
  endianness: () => 'LE',
  hostname: () => 'localhost',
  homedir: () => '/tmp',
  tmpdir: () => '/tmp',
  uptime: () => Math.floor((Date.now() - start) / 1000),
  loadavg: () => [0, 0, 0],
  totalmem: () => 128 * 1024 * 1024,
  freemem: () => 64 * 1024 * 1024,
  availableParallelism: () => 1,
  cpus: () => [{ model: 'virtual', speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } }],
  networkInterfaces: () => ({}),
  userInfo: () => ({ uid: 1000, gid: 1000, username: 'function', homedir: '/tmp', shell: null }),
  getPriority: () => 0,
  setPriority() {
    const e = new Error('os.setPriority is not available in the function sandbox');
    e.code = 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM';
    throw e;
  },
};
module.exports = os;
