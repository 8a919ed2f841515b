/**
 * The AWS values Switchyard has no real counterpart for (no account, no
 * region), shared by the Lambda context (runtime) and the API Gateway events
 * (gateway) so that one handler sees one consistent made-up identity.
 * docs/functions.md lists where each appears.
 */

/** AWS's own documentation example account id: stable and obviously not a real account. */
export const AWS_ACCOUNT_ID = '123456789012';
/** The region in made-up ARNs. */
export const AWS_REGION = 'us-east-1';
