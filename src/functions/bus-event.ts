/**
 * The event a function subscribed to an event name (its `events`) receives:
 * Switchyard's own shape, or for `aws-v1` / `aws-v2` functions the
 * EventBridge event shape, with `source` "switchyard", that a Lambda handler
 * behind an EventBridge rule expects. One id per published event, shared by
 * every function it reaches.
 */
import { AWS_ACCOUNT_ID, AWS_REGION } from '../aws-placeholders.js';
import type { EventFormat } from '../types.js';

export function subscribedEvent(format: EventFormat, name: string, id: string, time: string, data: unknown): unknown {
  if (format === 'switchyard') {
    return { source: 'switchyard.event', 'detail-type': name, id, time, detail: data ?? null };
  }
  return {
    version: '0',
    id,
    'detail-type': name,
    source: 'switchyard',
    account: AWS_ACCOUNT_ID,
    time: time.replace(/\.\d{3}Z$/, 'Z'),
    region: AWS_REGION,
    resources: [],
    detail: data ?? null,
  };
}
