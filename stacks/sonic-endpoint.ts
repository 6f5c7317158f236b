import type { CreatedSonicEndpoint, StageConfig } from "./stage-config";

/** The one production variant of a created endpoint (the name Cartesia's notebooks use). */
const SONIC_VARIANT = "AllTraffic";

/** Application Auto Scaling's predefined metric: concurrent requests per model container, every 10 s. */
const SONIC_SCALING_METRIC = "SageMakerVariantConcurrentRequestsPerModelHighResolution";

/** The Sonic endpoint the stage's Synthesize function streams from. */
export interface DeployedSonicEndpoint {
  /** The endpoint's name, as VOXTRAIL_SONIC_ENDPOINT and the IAM grant name it. */
  name: $util.Output<string>;
  /** The production variant its metrics are reported under. */
  variant: string;
}

/**
 * The stage's Sonic endpoint, when its synthesizer is `sonic-sagemaker`: an existing endpoint by
 * name (nothing is created), or one created from the model package ARN of the account's AWS
 * Marketplace subscription, following Cartesia's notebook (sonic-3-6-jumpstart):
 * - a SageMaker model whose primary container is the model package, with network isolation (the
 *   container gets no network: Marketplace model packages require it), run by an execution role
 *   that may write the endpoint's logs and pull the seller's image;
 * - an endpoint configuration with one variant on the configured GPU instance type (Cartesia
 *   documents ml.g6e.xlarge), `minInstances` instances to begin with, and least-outstanding-requests
 *   routing, so a new stream goes to the instance with the fewest in flight (streams are long and
 *   uneven; random routing would pile them up);
 * - the endpoint, named `<app>-<stage>-sonic`;
 * - auto scaling of the variant's instance count between `minInstances` and `maxInstances`,
 *   tracking concurrent requests per model ({@link SONIC_SCALING_METRIC}) at the configured target.
 * Returns nothing when the stage does not synthesize on SageMaker. A changed model or instance
 * type makes a new endpoint configuration that the endpoint is updated to; SageMaker refuses to
 * change the instance type of a variant registered for auto scaling, so that change needs the
 * scalable target deregistered first (docs/deploy.md, "Per-stage configuration").
 *
 * @example
 * const sonic = sonicEndpoint(config); // sonic?.name -> "voxtrail-production-sonic"
 */
export function sonicEndpoint(config: StageConfig): DeployedSonicEndpoint | undefined {
  const sonic = config.sonic;
  if (config.providers.synthesizer !== "sonic-sagemaker" || sonic === undefined) return undefined;
  if ("endpointName" in sonic) return { name: $util.output(sonic.endpointName), variant: sonic.variantName };
  return createdEndpoint(sonic);
}

function createdEndpoint(sonic: CreatedSonicEndpoint): DeployedSonicEndpoint {
  const endpointName = `${$app.name}-${$app.stage}-sonic`.toLowerCase();
  const partition = aws.getPartitionOutput().partition;
  const region = aws.getRegionOutput().region;
  const account = aws.getCallerIdentityOutput().accountId;
  const role = new aws.iam.Role("SonicExecutionRole", {
    assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: "sagemaker.amazonaws.com" }),
    inlinePolicies: [
      {
        name: "sonic-endpoint",
        policy: $jsonStringify({
          Version: "2012-10-17",
          Statement: [
            {
              Effect: "Allow",
              Action: [
                "logs:CreateLogGroup",
                "logs:CreateLogStream",
                "logs:PutLogEvents",
                "logs:DescribeLogStreams",
              ],
              Resource: $interpolate`arn:${partition}:logs:${region}:${account}:log-group:/aws/sagemaker/Endpoints/${endpointName}*`,
            },
            // The seller's image lives in an account of AWS Marketplace's: its repository is not ours to name.
            {
              Effect: "Allow",
              Action: ["ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage"],
              Resource: $interpolate`arn:${partition}:ecr:${region}:*:repository/*`,
            },
            // Neither action can be scoped to a resource.
            {
              Effect: "Allow",
              Action: ["ecr:GetAuthorizationToken", "cloudwatch:PutMetricData"],
              Resource: "*",
            },
          ],
        }),
      },
    ],
  });
  const model = new aws.sagemaker.Model("SonicModel", {
    executionRoleArn: role.arn,
    primaryContainer: { modelPackageName: sonic.modelPackageArn },
    enableNetworkIsolation: true,
  });
  const endpointConfiguration = new aws.sagemaker.EndpointConfiguration("SonicEndpointConfiguration", {
    productionVariants: [
      {
        variantName: SONIC_VARIANT,
        modelName: model.name,
        instanceType: sonic.instanceType,
        initialInstanceCount: sonic.minInstances,
        initialVariantWeight: 1,
        routingConfigs: [{ routingStrategy: "LEAST_OUTSTANDING_REQUESTS" }],
      },
    ],
  });
  const endpoint = new aws.sagemaker.Endpoint("SonicEndpoint", {
    name: endpointName,
    endpointConfigName: endpointConfiguration.name,
  });
  const target = new aws.appautoscaling.Target("SonicScalingTarget", {
    serviceNamespace: "sagemaker",
    scalableDimension: "sagemaker:variant:DesiredInstanceCount",
    resourceId: $interpolate`endpoint/${endpoint.name}/variant/${SONIC_VARIANT}`,
    minCapacity: sonic.minInstances,
    maxCapacity: sonic.maxInstances,
  });
  new aws.appautoscaling.Policy("SonicScalingPolicy", {
    policyType: "TargetTrackingScaling",
    serviceNamespace: target.serviceNamespace,
    scalableDimension: target.scalableDimension,
    resourceId: target.resourceId,
    targetTrackingScalingPolicyConfiguration: {
      targetValue: sonic.targetConcurrentRequestsPerInstance,
      predefinedMetricSpecification: { predefinedMetricType: SONIC_SCALING_METRIC },
      scaleInCooldown: sonic.scaleInCooldownSeconds,
      scaleOutCooldown: sonic.scaleOutCooldownSeconds,
    },
  });
  return { name: endpoint.name, variant: SONIC_VARIANT };
}
