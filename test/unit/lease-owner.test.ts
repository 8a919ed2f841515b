import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isDeadOwnerOnThisHost, newLeaseOwner, pidExists } from '../../src/deliveries/lease-owner.js';

describe('lease owners', () => {
  const self = newLeaseOwner('node-1', 4242);
  const running = new Set([4242, 77]);
  const exists = (pid: number) => running.has(pid);

  it('names the host, the pid and one random part per process start', () => {
    expect(self).toMatch(/^node-1:4242:[0-9a-f]{6}$/);
    expect(newLeaseOwner('node-1', 4242)).not.toBe(self);
    expect(newLeaseOwner()).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${process.pid}:`));
  });

  it('finds an owner of this host gone when its pid runs nothing, or is ours under another start', () => {
    expect(isDeadOwnerOnThisHost('node-1:999:abcdef', self, exists)).toBe(true);
    // A container restarted as the same pid (pid 1): the predecessor had our pid.
    expect(isDeadOwnerOnThisHost('node-1:4242:abcdef', self, exists)).toBe(true);
  });

  it('never finds gone: ourselves, a running pid, another host, or a name it does not know', () => {
    expect(isDeadOwnerOnThisHost(self, self, exists)).toBe(false);
    expect(isDeadOwnerOnThisHost('node-1:77:abcdef', self, exists)).toBe(false);
    expect(isDeadOwnerOnThisHost('node-2:999:abcdef', self, exists)).toBe(false);
    expect(isDeadOwnerOnThisHost('node-2:4242:abcdef', self, exists)).toBe(false);
    for (const odd of ['probe', 'node-1:0:abcdef', 'node-1:-5:abcdef', 'node-1:12:', ':12:abcdef', 'node-1:12:xyz']) {
      expect(isDeadOwnerOnThisHost(odd, self, exists)).toBe(false);
    }
  });

  it('asks the OS whether a pid runs', () => {
    expect(pidExists(process.pid)).toBe(true);
    // Above any pid_max: nothing has it.
    expect(pidExists(4_194_399)).toBe(false);
  });
});
