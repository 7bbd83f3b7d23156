import type { AppContext } from './context.js';
// The order of these imports is the order in which the areas' answer schemas are registered, and so the order of the
// OpenAPI document's components: keep it, or web/src/api/schema.d.ts is rewritten in another order.
import { makeDatasetService } from './features/datasets/service.js';
import { SketchStore } from './features/datasets/sketch-store.js';
import { makeImageService } from './features/images/service.js';
import { makeImagePreprocess } from './features/images/preprocess.js';
import { makeRunService } from './features/training/runs.js';
import { makeTrainingService } from './features/training/service.js';
import { makeDesignService } from './features/optimal-design/service.js';
import { makeOptimizationService } from './features/optimization/service.js';
import { makePreprocessService } from './features/preprocessing/service.js';
import { makeStatisticalService } from './features/statistical-analysis/service.js';
import { makeTimeSeriesService } from './features/timeseries/service.js';
import { makePredictionService } from './features/prediction/service.js';
import { makeVisualizationService } from './features/visualization/service.js';
import { makeAccountService } from './features/account/service.js';
import { makeAuditService } from './features/audit/service.js';
import { makeBillingService } from './features/billing/service.js';
import { makeDownloadService } from './features/downloads/service.js';
import { makeIdentityReviewService } from './features/identity-review/service.js';
import { makeIdentityService } from './features/identity/service.js';
import { makeInstallationService } from './features/installation/service.js';
import { makeMeService } from './features/me/service.js';
import { makeMembersService } from './features/members/service.js';
import { makeOidcService } from './features/oidc/service.js';
import { makePlatformService } from './features/platform/service.js';
import { makeDriftService } from './features/platform/drift/service.js';
import type { HostedProjects } from './features/billing/hosted.js';
import { makeProfileService } from './features/profile/service.js';
import { makeOperationsService } from './features/operations/service.js';

/**
 * The areas' services, built once at start-up (buildApp) and handed to the route plugins as `app.services`; each
 * service receives the others it uses here, so nothing else calls a service factory.
 */
export function buildServices(ctx: AppContext) {
  // The exploration sketches and their caches: this app's own (the datasets area hands them to the others).
  const datasets = makeDatasetService(ctx, { sketches: new SketchStore(ctx.config.sketch) });
  const runs = makeRunService(ctx);
  const training = makeTrainingService(ctx, { datasets, runs });
  const timeSeries = makeTimeSeriesService(ctx, { datasets, training, runs });
  const images = makeImageService(ctx, { datasets, runs });
  // The account side, lowest first: account ← identity ← profile ← members.
  const account = makeAccountService(ctx);
  const identity = makeIdentityService(ctx);
  const installation = makeInstallationService(ctx, account);
  const profile = makeProfileService(ctx, account, identity, installation);
  const platform = makePlatformService(ctx, { training, timeSeries, installation, identity, users: account.users });
  const services = {
    account,
    installation,
    identity,
    profile,
    members: makeMembersService(ctx, account, profile),
    oidc: makeOidcService(ctx, account),
    identityReview: makeIdentityReviewService(ctx, account, identity),
    me: makeMeService(ctx, account),
    audit: makeAuditService(ctx, account),
    downloads: makeDownloadService(ctx),
    operations: makeOperationsService(ctx, { organisationNames: account.users.organisationNames }),
    platform,
    drift: makeDriftService(ctx, { platform, training, datasets, users: account.users }),
    billing: makeBillingService(ctx, { hosted: hostedForBilling(platform), organisationNames: account.users.organisationNames, identity, bank: installation.bank }),
    datasets,
    runs,
    training,
    timeSeries,
    images,
    imagePreprocess: makeImagePreprocess(ctx, { images, datasets }),
    predictions: makePredictionService(ctx, { datasets, training, timeSeries, runs, images }),
    preprocessing: makePreprocessService(ctx, { datasets }),
    visualization: makeVisualizationService(ctx, { datasets }),
    statisticalAnalysis: makeStatisticalService(ctx, { datasets }),
    optimization: makeOptimizationService(ctx, { datasets, training }),
    design: makeDesignService(ctx, { training }),
  };
  installJobHandlers(services);
  return services;
}
export type Services = ReturnType<typeof buildServices>;

/**
 * What the areas do when an engine job streams an event or ends, installed once, here, beside the services: a process
 * without the HTTP routes (a worker-only server, a test that builds services only) still keeps every run in step.
 */
function installJobHandlers(s: Pick<Services, 'datasets' | 'statisticalAnalysis' | 'training' | 'timeSeries' | 'images' | 'design' | 'drift'>) {
  s.datasets.installJobHandlers();
  s.statisticalAnalysis.installJobHandlers();
  s.training.installJobHandlers();
  s.timeSeries.installJobHandlers();
  s.images.installJobHandlers();
  s.design.installJobHandlers();
  s.drift.installJobHandlers();
}

/** The hosted APIs as billing sees them: the platform area's price list, project look-ups and billed usage. */
export function hostedForBilling(platform: Pick<ReturnType<typeof makePlatformService>, 'prices' | 'get' | 'reviewedIn' | 'usage'>): HostedProjects {
  return {
    prices: platform.prices,
    get: platform.get,
    reviewedIn: platform.reviewedIn,
    usage: platform.usage,
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
