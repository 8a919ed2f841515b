/**
 * Authorizers from serverless.yml (`http` events' `authorizer`, a function
 * name or its object form; `provider.httpApi.authorizers` of type jwt and
 * request; `httpApi` events' `authorizer: {name, scopes}`) and SAM (`Auth` of
 * an Api and an HttpApi, and under Globals: Lambda TOKEN and REQUEST
 * authorizers, OAuth2 JWT authorizers, DefaultAuthorizer, an event's
 * Authorizer, NONE and AuthorizationScopes): each becomes its API's
 * authorizers and its routes' settings, the file loads as a valid project,
 * and what cannot be carried is listed by name, the routes it leaves open
 * named too.
 */
import { describe, expect, it } from 'vitest';
import { importSam, importServerless, parseProject } from '../../src/project/index.js';

/** The imported file loads: the schema, the names and the server's own checks of authorizers accept it. */
async function loads(yaml: string): Promise<void> {
  await parseProject(yaml, '/p/switchyard.yaml', { readFile: async () => 'export const handler = () => 1;' });
}

const notesOf = (r: { notes: string[] }) => r.notes.join('\n');

describe('import serverless.yml authorizers', () => {
  it('http events: a function of the service by name is a TOKEN authorizer with the Framework defaults', async () => {
    const result = importServerless(`
service: posts
provider: { name: aws, runtime: nodejs20.x }
functions:
  create:
    handler: posts.create
    events:
      - http:
          path: posts/create
          method: post
          authorizer: authorizerFunc
  list:
    handler: posts.list
    events:
      - http: GET posts
  authorizerFunc:
    handler: handler.authorizerFunc
`);
    const api = result.document.apis!.posts;
    expect(api.authorizers).toEqual([
      {
        name: 'authorizerFunc',
        type: 'function',
        function: 'authorizerFunc',
        payload_format_version: '1.0',
        kind: 'TOKEN',
        identity_sources: ['method.request.header.Authorization'],
        result_ttl_seconds: 300,
      },
    ]);
    expect(api.default_authorizer).toBeUndefined();
    expect(api.routes!.find((r) => r.path === '/posts/create')!.authorizer).toBe('authorizerFunc');
    expect(api.routes!.find((r) => r.path === '/posts')!.authorizer).toBeUndefined();
    expect(result.notes).toEqual([]);
    await loads(result.yaml);
  });

  it('http events: the object form (request type, several sources, a TTL), the validation expression listed, the same authorizer once', async () => {
    const result = importServerless(`
service: posts
provider: { name: aws, runtime: nodejs20.x }
functions:
  create:
    handler: posts.create
    events:
      - http:
          path: posts/create
          method: post
          authorizer:
            name: authorizerFunc
            resultTtlInSeconds: 0
            identitySource: method.request.header.Authorization, method.request.querystring.tenant, context.identity.sourceIp
            identityValidationExpression: someRegex
            type: request
      - http:
          path: posts/{id}
          method: delete
          authorizer:
            name: authorizerFunc
            type: token
  authorizerFunc:
    handler: handler.authorizerFunc
`);
    const api = result.document.apis!.posts;
    expect(api.authorizers).toEqual([
      {
        name: 'authorizerFunc',
        type: 'function',
        function: 'authorizerFunc',
        payload_format_version: '1.0',
        kind: 'REQUEST',
        identity_sources: ['method.request.header.Authorization', 'method.request.querystring.tenant'],
        result_ttl_seconds: 0,
      },
    ]);
    expect(api.routes!.map((r) => r.authorizer)).toEqual(['authorizerFunc', 'authorizerFunc']);
    const notes = notesOf(result);
    expect(notes).toContain('functions.create.events[0].http.authorizer.identitySource: context.identity.sourceIp not carried (identity sources here are headers and query strings)');
    expect(notes).toContain('functions.create.events[0].http.authorizer.identityValidationExpression: not carried (the authorizer function sees every token)');
    expect(notes).toContain("functions.create.events[1].http.authorizer: authorizer 'authorizerFunc' differs from the one of functions.create.events[0].http.authorizer; kept that one");
    await loads(result.yaml);
  });

  it('http events: aws_iam, ARNs, Cognito and shared authorizers are listed and their routes named open', async () => {
    const result = importServerless(`
service: posts
provider: { name: aws, runtime: nodejs20.x }
functions:
  a:
    handler: h.a
    events:
      - http: { path: a, method: get, authorizer: aws_iam }
      - http: { path: b, method: get, authorizer: 'xxx:xxx:Lambda-Name' }
      - http:
          path: c
          method: get
          authorizer:
            arn: arn:aws:cognito-idp:us-east-1:xxx:userpool/us-east-1_ZZZ
            scopes: [my-app/read]
      - http:
          path: d
          method: get
          authorizer:
            type: CUSTOM
            authorizerId: { Ref: ApiGatewayAuthorizer }
      - http: { path: e, method: get, authorizer: missingFunc }
`);
    expect(result.document.apis!.posts.authorizers).toBeUndefined();
    expect(result.document.apis!.posts.routes!.every((r) => r.authorizer === undefined)).toBe(true);
    expect(result.notes).toEqual([
      'functions.a.events[0].http.authorizer: aws_iam is not carried (requests signed with AWS credentials); the route is open',
      'functions.a.events[1].http.authorizer: xxx:xxx:Lambda-Name is an ARN: a function outside this service is not carried; the route is open',
      "functions.a.events[2].http.authorizer: a Cognito user pool authorizer is not carried (a JWT authorizer of the pool's issuer can stand in); the route is open",
      'functions.a.events[3].http.authorizer: a shared authorizer (authorizerId) is not carried; the route is open',
      'functions.a.events[4].http.authorizer: "missingFunc" is not a function of this service; the route is open',
    ]);
    await loads(result.yaml);
  });

  it('provider.httpApi.authorizers: a JWT authorizer with scopes per route, and a request authorizer with simple responses', async () => {
    const result = importServerless(`
service: shop
provider:
  name: aws
  runtime: nodejs20.x
  region: eu-west-1
  httpApi:
    authorizers:
      someJwtAuthorizer:
        identitySource: $request.header.Authorization
        issuerUrl: https://cognito-idp.\${self:provider.region}.amazonaws.com/eu-west-1_Pool1
        audience:
          - client-one
          - client-two
      customAuthorizer:
        type: request
        functionName: authorizerFunc
        resultTtlInSeconds: 60
        enableSimpleResponses: true
        payloadVersion: '2.0'
        identitySource:
          - $request.header.Authorization
          - $request.header.X-Tenant
        managedExternally: true
functions:
  someFunction:
    handler: index.handler
    events:
      - httpApi:
          method: POST
          path: /some-post
          authorizer:
            name: someJwtAuthorizer
            scopes:
              - user.id
              - user.email
      - httpApi:
          method: GET
          path: /orders
          authorizer:
            name: customAuthorizer
      - httpApi: GET /health
  authorizerFunc:
    handler: handler.authorizerFunc
`);
    const api = result.document.apis!.shop;
    expect(api.authorizers).toEqual([
      {
        name: 'someJwtAuthorizer',
        type: 'jwt',
        issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool1',
        audience: ['client-one', 'client-two'],
        jwks_url: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool1/.well-known/jwks.json',
      },
      {
        name: 'customAuthorizer',
        type: 'function',
        function: 'authorizerFunc',
        payload_format_version: '2.0',
        kind: 'REQUEST',
        identity_sources: ['$request.header.Authorization', '$request.header.X-Tenant'],
        result_ttl_seconds: 60,
        enable_simple_responses: true,
      },
    ]);
    expect(api.routes!.map((r) => [r.path, r.authorizer, r.authorization_scopes])).toEqual([
      ['/some-post', 'someJwtAuthorizer', ['user.id', 'user.email']],
      ['/orders', 'customAuthorizer', undefined],
      ['/health', undefined, undefined],
    ]);
    expect(result.notes).toEqual([
      "provider.httpApi.authorizers.someJwtAuthorizer.issuerUrl: the keys are read from https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool1/.well-known/jwks.json (AWS finds them through the issuer's OpenID discovery document; set jwks_url if they lie elsewhere)",
    ]);
    await loads(result.yaml);
  });

  it('httpApi: aws_iam, an unknown name, a function outside the service and scopes on a function authorizer are listed', async () => {
    const result = importServerless(`
service: shop
provider:
  name: aws
  httpApi:
    authorizers:
      outside:
        type: request
        functionArn: arn:aws:lambda:us-east-1:123456789012:function:auth
      reqAuth:
        type: request
        functionName: gate
functions:
  gate:
    handler: h.gate
  f:
    handler: h.f
    events:
      - httpApi: { method: GET, path: /a, authorizer: { type: aws_iam } }
      - httpApi: { method: GET, path: /b, authorizer: { name: nowhere } }
      - httpApi: { method: GET, path: /c, authorizer: { name: outside } }
      - httpApi: { method: GET, path: /d, authorizer: { name: reqAuth, scopes: [read] } }
`);
    const api = result.document.apis!.shop;
    expect(api.authorizers!.map((a) => a.name)).toEqual(['reqAuth']);
    // No identity source: the function decides every request, as on AWS.
    expect(api.authorizers![0]).toMatchObject({ identity_sources: [], result_ttl_seconds: 0, payload_format_version: '2.0' });
    expect(api.routes!.map((r) => [r.path, r.authorizer ?? null, r.authorization_scopes ?? null])).toEqual([
      ['/a', null, null],
      ['/b', null, null],
      ['/c', null, null],
      ['/d', 'reqAuth', null],
    ]);
    expect(result.notes).toEqual([
      'provider.httpApi.authorizers.outside: functionArn "arn:aws:lambda:us-east-1:123456789012:function:auth" is a function outside this service; the authorizer is not carried',
      'functions.f.events[0].httpApi.authorizer: aws_iam is not carried (requests signed with AWS credentials); the route is open',
      'functions.f.events[1].httpApi.authorizer: "nowhere" is not an authorizer of provider.httpApi.authorizers; the route is open',
      "apis.shop.routes[2]: GET /c: the authorizer 'outside' is not carried; the route is open",
      'apis.shop.routes[3]: GET /d: scopes read not carried (scopes belong to a JWT authorizer)',
    ]);
    await loads(result.yaml);
  });

  it('an authorizer whose function was not carried is left out, and its routes named', async () => {
    const result = importServerless(`
service: posts
provider: { name: aws }
functions:
  create:
    handler: posts.create
    events:
      - http: { path: posts, method: post, authorizer: imageAuth }
  imageAuth:
    image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/auth:latest
`);
    expect(result.document.apis!.posts.authorizers).toBeUndefined();
    expect(result.document.apis!.posts.routes![0].authorizer).toBeUndefined();
    const notes = notesOf(result);
    expect(notes).toContain("functions.create.events[0].http.authorizer: the function 'imageAuth' was not carried; the authorizer is not carried");
    expect(notes).toContain("apis.posts.routes[0]: POST /posts: the authorizer 'imageAuth' is not carried; the route is open");
    await loads(result.yaml);
  });
});

describe('import SAM authorizers', () => {
  it('Api: a TOKEN authorizer as the default, a REQUEST authorizer on one event, NONE on another', async () => {
    const result = importSam(`
Transform: AWS::Serverless-2016-10-31
Resources:
  MyApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: Prod
      Auth:
        DefaultAuthorizer: MyLambdaTokenAuthorizer
        Authorizers:
          MyLambdaTokenAuthorizer:
            FunctionArn: !GetAtt MyAuthFunction.Arn
            Identity:
              Header: X-Token
              ReauthorizeEvery: 120
          MyLambdaRequestAuthorizer:
            FunctionPayloadType: REQUEST
            FunctionArn: !GetAtt MyAuthFunction.Arn
            Identity:
              Headers: [Authorization]
              QueryStrings: [auth]
              StageVariables: [AUTHORIZER_STAGE]
  MyFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: ./src
      Handler: index.handler
      Runtime: nodejs20.x
      Events:
        GetRoot:
          Type: Api
          Properties: { RestApiId: !Ref MyApi, Path: /, Method: get }
        GetReport:
          Type: Api
          Properties:
            RestApiId: !Ref MyApi
            Path: /report
            Method: get
            Auth: { Authorizer: MyLambdaRequestAuthorizer }
        GetHealth:
          Type: Api
          Properties:
            RestApiId: !Ref MyApi
            Path: /health
            Method: get
            Auth: { Authorizer: NONE }
  MyAuthFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: ./src
      Handler: authorizer.handler
      Runtime: nodejs20.x
`);
    const api = result.document.apis!.MyApi;
    expect(api.authorizers).toEqual([
      {
        name: 'MyLambdaTokenAuthorizer',
        type: 'function',
        function: 'MyAuthFunction',
        payload_format_version: '1.0',
        kind: 'TOKEN',
        identity_sources: ['method.request.header.X-Token'],
        result_ttl_seconds: 120,
      },
      {
        name: 'MyLambdaRequestAuthorizer',
        type: 'function',
        function: 'MyAuthFunction',
        payload_format_version: '1.0',
        kind: 'REQUEST',
        identity_sources: ['method.request.header.Authorization', 'method.request.querystring.auth'],
        result_ttl_seconds: 300,
      },
    ]);
    expect(api.default_authorizer).toBe('MyLambdaTokenAuthorizer');
    expect(api.routes!.map((r) => [r.path, r.authorizer ?? null])).toEqual([
      ['/', null],
      ['/report', 'MyLambdaRequestAuthorizer'],
      ['/health', 'NONE'],
    ]);
    expect(result.notes).toEqual([
      "Resources.MyApi: StageName not carried (the API's routes come from the functions' events; stages and domains have no counterpart)",
      'Resources.MyApi.Properties.Auth.Authorizers.MyLambdaRequestAuthorizer.Identity: StageVariables not carried (identity sources here are headers and query strings)',
    ]);
    await loads(result.yaml);
  });

  it('HttpApi: an OAuth2 JWT authorizer with its scopes, a Lambda authorizer with simple responses, scopes per event', async () => {
    const result = importSam(`
Transform: AWS::Serverless-2016-10-31
Resources:
  MyHttpApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      Auth:
        Authorizers:
          OAuth2Authorizer:
            AuthorizationScopes: [scope1, scope2]
            JwtConfiguration:
              issuer: "https://www.example.com/v1/connect/oauth2"
              audience: [MyApi]
            IdentitySource: "$request.querystring.param"
          LambdaAuthorizer:
            FunctionArn: !GetAtt MyAuthFunction.Arn
            AuthorizerPayloadFormatVersion: 2.0
            EnableSimpleResponses: true
            Identity:
              Headers: [Authorization]
              ReauthorizeEvery: 30
        DefaultAuthorizer: OAuth2Authorizer
  MyFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      Runtime: nodejs20.x
      Events:
        List:
          Type: HttpApi
          Properties: { ApiId: !Ref MyHttpApi, Path: /items, Method: GET }
        Create:
          Type: HttpApi
          Properties:
            ApiId: !Ref MyHttpApi
            Path: /items
            Method: POST
            Auth: { AuthorizationScopes: [items.write] }
        Report:
          Type: HttpApi
          Properties:
            ApiId: !Ref MyHttpApi
            Path: /report
            Method: GET
            Auth: { Authorizer: LambdaAuthorizer }
  MyAuthFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: auth.handler
      Runtime: nodejs20.x
`);
    const api = result.document.apis!.MyHttpApi;
    expect(api.authorizers).toEqual([
      {
        name: 'OAuth2Authorizer',
        type: 'jwt',
        issuer: 'https://www.example.com/v1/connect/oauth2',
        audience: ['MyApi'],
        jwks_url: 'https://www.example.com/v1/connect/oauth2/.well-known/jwks.json',
        identity_source: '$request.querystring.param',
      },
      {
        name: 'LambdaAuthorizer',
        type: 'function',
        function: 'MyAuthFunction',
        payload_format_version: '2.0',
        kind: 'REQUEST',
        identity_sources: ['$request.header.Authorization'],
        result_ttl_seconds: 30,
        enable_simple_responses: true,
      },
    ]);
    expect(api.default_authorizer).toBe('OAuth2Authorizer');
    expect(api.routes!.map((r) => [r.method, r.path, r.authorizer ?? null, r.authorization_scopes ?? null])).toEqual([
      ['GET', '/items', null, ['scope1', 'scope2']],
      ['POST', '/items', null, ['items.write']],
      ['GET', '/report', 'LambdaAuthorizer', null],
    ]);
    expect(result.notes).toEqual([
      "Resources.MyHttpApi.Properties.Auth.Authorizers.OAuth2Authorizer.JwtConfiguration.issuer: the keys are read from https://www.example.com/v1/connect/oauth2/.well-known/jwks.json (AWS finds them through the issuer's OpenID discovery document; set jwks_url if they lie elsewhere)",
    ]);
    await loads(result.yaml);
  });

  it('Globals: an HttpApi Lambda authorizer of payload 1.0 for the implicit API', async () => {
    const result = importSam(`
Transform: AWS::Serverless-2016-10-31
Globals:
  HttpApi:
    Auth:
      Authorizers:
        Gate:
          FunctionArn: !GetAtt Gate.Arn
          AuthorizerPayloadFormatVersion: '1.0'
          Identity: { QueryStrings: [key] }
      DefaultAuthorizer: Gate
Resources:
  Gate:
    Type: AWS::Serverless::Function
    Properties: { Handler: gate.handler, Runtime: nodejs20.x }
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      Runtime: nodejs20.x
      Events:
        Get: { Type: HttpApi, Properties: { Path: /x, Method: GET } }
`);
    const api = result.document.apis!.ServerlessHttpApi;
    expect(api.authorizers).toEqual([
      {
        name: 'Gate',
        type: 'function',
        function: 'Gate',
        payload_format_version: '1.0',
        kind: 'REQUEST',
        identity_sources: ['$request.querystring.key'],
        result_ttl_seconds: 300,
      },
    ]);
    expect(api.default_authorizer).toBe('Gate');
    expect(result.notes).toEqual([]);
    await loads(result.yaml);
  });

  it('Cognito, AWS_IAM, a function outside the template and Auth keys without a counterpart are listed; their routes named', async () => {
    const result = importSam(`
Transform: AWS::Serverless-2016-10-31
Resources:
  MyApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: Prod
      Auth:
        DefaultAuthorizer: MyCognitoAuth
        AddDefaultAuthorizerToCorsPreflight: true
        ResourcePolicy: { CustomStatements: [] }
        Authorizers:
          MyCognitoAuth:
            UserPoolArn: !GetAtt MyCognitoUserPool.Arn
          OutsideAuth:
            FunctionArn: arn:aws:lambda:us-east-1:123456789012:function:auth
          Token:
            FunctionArn: !GetAtt Auth.Arn
            FunctionInvokeRole: !GetAtt Role.Arn
            Identity: { ValidationExpression: '^Bearer [-0-9a-zA-Z._]*$' }
  Auth:
    Type: AWS::Serverless::Function
    Properties: { Handler: auth.handler, Runtime: nodejs20.x }
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      Runtime: nodejs20.x
      Events:
        A: { Type: Api, Properties: { RestApiId: !Ref MyApi, Path: /a, Method: get } }
        B: { Type: Api, Properties: { RestApiId: !Ref MyApi, Path: /b, Method: get, Auth: { Authorizer: AWS_IAM } } }
        C: { Type: Api, Properties: { RestApiId: !Ref MyApi, Path: /c, Method: get, Auth: { Authorizer: OutsideAuth, InvokeRole: CALLER_CREDENTIALS } } }
        D: { Type: Api, Properties: { RestApiId: !Ref MyApi, Path: /d, Method: get, Auth: { Authorizer: Token, AuthorizationScopes: [read] } } }
`);
    const api = result.document.apis!.MyApi;
    expect(api.authorizers!.map((a) => a.name)).toEqual(['Token']);
    expect(api.default_authorizer).toBeUndefined();
    expect(api.routes!.map((r) => [r.path, r.authorizer ?? null, r.authorization_scopes ?? null])).toEqual([
      ['/a', null, null],
      ['/b', null, null],
      ['/c', null, null],
      ['/d', 'Token', null],
    ]);
    expect(result.notes).toEqual([
      "Resources.MyApi: StageName not carried (the API's routes come from the functions' events; stages and domains have no counterpart)",
      'Resources.MyApi.Properties.Auth.AddDefaultAuthorizerToCorsPreflight: not carried (the gateway answers preflights itself, under no authorizer)',
      "Resources.MyApi.Properties.Auth.Authorizers.MyCognitoAuth: a Cognito user pool authorizer is not carried (a JWT authorizer of the pool's issuer can stand in); the authorizer is not carried",
      'Resources.MyApi.Properties.Auth.Authorizers.OutsideAuth: FunctionArn "arn:aws:lambda:us-east-1:123456789012:function:auth" is not !GetAtt <function>.Arn of a function of this template; the authorizer is not carried',
      'Resources.MyApi.Properties.Auth.Authorizers.Token: FunctionInvokeRole not carried',
      'Resources.MyApi.Properties.Auth.Authorizers.Token.Identity: ValidationExpression not carried (the authorizer function sees every token)',
      'Resources.MyApi.Properties.Auth: ResourcePolicy not carried',
      'Resources.Fn.Properties.Events.B.Properties.Auth.Authorizer: AWS_IAM is not carried (requests signed with AWS credentials); the route is open',
      'Resources.Fn.Properties.Events.C.Properties.Auth: InvokeRole not carried',
      "apis.MyApi: the default authorizer 'MyCognitoAuth' is not carried; routes that name no authorizer are open",
      "apis.MyApi.routes[2]: GET /c: the authorizer 'OutsideAuth' is not carried; the route is open",
      'apis.MyApi.routes[3]: GET /d: scopes read not carried (scopes belong to a JWT authorizer)',
    ]);
    await loads(result.yaml);
  });
});
