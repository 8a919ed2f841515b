'use strict';

// A Serverless Framework style handler in callback style (serverless.yml:
// `handler: handler.greet`, an `http` event), deployed with
// `handler: handler.greet` and `event_format: aws-v1`.
module.exports.greet = (event, context, callback) => {
  const name = event.pathParameters.name;
  if (name.length > 40) {
    callback(null, { statusCode: 400, body: JSON.stringify({ message: 'name is too long' }) });
    return;
  }
  callback(null, {
    statusCode: 200,
    body: JSON.stringify({ greeting: `Hello, ${name}!`, requestId: context.awsRequestId }),
  });
};
