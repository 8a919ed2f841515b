// A SAM-style REST API handler (template.yaml: `Handler: app.lambdaHandler`,
// an `Api` event), deployed with `handler: app.lambdaHandler` and
// `event_format: aws-v1`. The body is a JSON string, as API Gateway's is;
// header names arrive as the client sent them.
export const lambdaHandler = async (event, context) => {
  const name = event.queryStringParameters?.name ?? 'world';
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      message: `hello ${name}`,
      resource: event.resource,
      stage: event.requestContext.stage,
      function: context.functionName,
    }),
  };
};
