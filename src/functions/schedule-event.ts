/**
 * The event a function receives when one of its `schedules` fires, in its
 * event format: Switchyard's own shape, or for `aws-v1` / `aws-v2` functions
 * the EventBridge scheduled event that Lambda handlers written for
 * EventBridge (Scheduler) rules expect. The scheduler calls this while it
 * claims the slot, so the stored invocation carries its final event.
 */
import { randomUUID } from 'node:crypto';
import { AWS_ACCOUNT_ID, AWS_REGION } from '../aws-placeholders.js';
import type { DueFunctionSchedule } from '../store/store.js';

/** EventBridge writes times to the second, without milliseconds. */
const eventBridgeTime = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

/** The rule name in the made-up `resources` ARN: `<function>-schedule-<n>`, n counting from 1. */
export const scheduleRuleName = (functionName: string, position: number) => `${functionName}-schedule-${position + 1}`;

export function scheduledInvocation(s: DueFunctionSchedule, slot: string): { event: unknown; detail: Record<string, unknown> } {
  const detail = { cron: s.cron, timezone: s.timezone, scheduled_for: slot, schedule: s.position + 1 };
  const id = randomUUID();
  const payload = s.payload ?? {};
  if (s.eventFormat === 'switchyard') {
    return {
      detail,
      event: {
        source: 'switchyard.schedule',
        'detail-type': 'Scheduled Event',
        time: slot,
        id,
        detail: payload,
        trigger: { type: 'schedule', ...detail },
      },
    };
  }
  return {
    detail,
    event: {
      version: '0',
      id,
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: AWS_ACCOUNT_ID,
      time: eventBridgeTime(slot),
      region: AWS_REGION,
      resources: [`arn:aws:events:${AWS_REGION}:${AWS_ACCOUNT_ID}:rule/${scheduleRuleName(s.functionName, s.position)}`],
      detail: payload,
    },
  };
}
