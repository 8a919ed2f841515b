/**
 * The IAM policy judgement of function authorizers (src/gateway/policy/iam-policy.ts):
 * method ARNs as API Gateway forms them, IAM's `*` and `?` wildcards, Deny over
 * Allow, and the shapes of policy documents functions write.
 */
import { describe, expect, it } from 'vitest';
import { judgePolicy, methodArn, statementsOf, wildcardMatch } from '../../src/gateway/policy/iam-policy.js';

const ARN = 'arn:aws:execute-api:us-east-1:123456789012:api1/$default/GET/pets/7';

describe('methodArn', () => {
  it('is region, account, API, stage, method and the path without its leading slash', () => {
    expect(methodArn('api1', 'GET', '/pets/7')).toBe(ARN);
    expect(methodArn('api1', 'POST', '/')).toBe('arn:aws:execute-api:us-east-1:123456789012:api1/$default/POST/');
  });
});

describe('wildcardMatch', () => {
  it.each([
    ['*', ARN, true],
    [ARN, ARN, true],
    ['arn:aws:execute-api:us-east-1:123456789012:api1/*', ARN, true],
    ['arn:aws:execute-api:us-east-1:123456789012:api1/$default/*/pets/*', ARN, true],
    ['arn:aws:execute-api:us-east-1:123456789012:api1/$default/POST/*', ARN, false],
    ['arn:aws:execute-api:us-east-1:123456789012:api1/$default/GET/pets/?', ARN, true],
    ['arn:aws:execute-api:us-east-1:123456789012:api1/$default/GET/pets/??', ARN, false],
    ['arn:aws:execute-api:*:*:api1/*/GET/*', ARN, true],
    ['arn:aws:execute-api:us-east-1:123456789012:api2/*', ARN, false],
    // Regular expression characters in a pattern are themselves.
    ['arn:aws:execute-api:us-east-1:123456789012:api1/$default/GET/pets/(7|8)', ARN, false],
    ['arn:aws:execute-api:us-east-1:123456789012:api1/$default/GET/pets/7.', ARN.slice(0, -1) + '7x', false],
  ])('%s against %s: %s', (pattern, value, expected) => {
    expect(wildcardMatch(pattern, value)).toBe(expected);
  });

  it('matches actions without regard to case when asked', () => {
    expect(wildcardMatch('execute-api:invoke', 'execute-api:Invoke', true)).toBe(true);
    expect(wildcardMatch('execute-api:*', 'execute-api:Invoke', true)).toBe(true);
    expect(wildcardMatch('s3:*', 'execute-api:Invoke', true)).toBe(false);
  });
});

describe('judgePolicy', () => {
  const allow = (Resource: string | string[], Action: string | string[] = 'execute-api:Invoke') => ({ Effect: 'Allow', Action, Resource });
  const deny = (Resource: string | string[]) => ({ Effect: 'Deny', Action: 'execute-api:Invoke', Resource });

  it('allows on a matching Allow, denies without one', () => {
    expect(judgePolicy([allow(ARN)], ARN)).toBe('allow');
    expect(judgePolicy([allow('arn:aws:execute-api:us-east-1:123456789012:api1/$default/GET/cats')], ARN)).toBe('deny');
    expect(judgePolicy([], ARN)).toBe('deny');
  });

  it('lets an explicit Deny win over any Allow', () => {
    expect(judgePolicy([allow('*'), deny(ARN)], ARN)).toBe('deny');
    expect(judgePolicy([deny('arn:aws:execute-api:us-east-1:123456789012:api1/$default/DELETE/*'), allow('*')], ARN)).toBe('allow');
  });

  it('takes lists of resources and actions, and ignores statements for other actions', () => {
    expect(judgePolicy([allow(['x', ARN], ['s3:GetObject', 'execute-api:*'])], ARN)).toBe('allow');
    expect(judgePolicy([allow(ARN, 's3:*')], ARN)).toBe('deny');
  });
});

describe('statementsOf', () => {
  it('reads one statement or a list', () => {
    const one = { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: ARN };
    expect(statementsOf({ Version: '2012-10-17', Statement: one })).toEqual([one]);
    expect(statementsOf({ Version: '2012-10-17', Statement: [one, { ...one, Effect: 'Deny' }] })).toHaveLength(2);
  });

  it.each([null, 'Allow', {}, { Statement: [{ Effect: 'Maybe', Action: '*', Resource: '*' }] }, { Statement: [{ Effect: 'Allow', Action: 1, Resource: '*' }] }, { Statement: [null] }])(
    'refuses %j',
    (document) => {
      expect(statementsOf(document)).toBeNull();
    },
  );
});
