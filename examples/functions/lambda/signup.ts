// TypeScript typed with `@types/aws-lambda`, as on AWS: the import is types
// only and disappears at deploy. An HTTP API handler (`event_format:
// aws-v2`) that reads a JSON body and answers with a cookie in `cookies`.
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';

interface Signup {
  email: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const handler = async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyResultV2> => {
  const signup: Partial<Signup> = event.body ? JSON.parse(event.body) : {};
  if (!signup.email || !EMAIL.test(signup.email)) {
    return { statusCode: 422, body: JSON.stringify({ message: 'a valid email is required' }) };
  }
  return {
    statusCode: 201,
    cookies: [`signup=${context.awsRequestId}; Path=/; HttpOnly`],
    body: JSON.stringify({ email: signup.email, welcome: true }),
  };
};
