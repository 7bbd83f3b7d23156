import { Navigate, type RouteObject } from 'react-router';
import { area } from './area';
import { registerRoutes } from './Breadcrumbs';
import { GuestOnly, RequireAuth } from './guards';
import NotFoundRoute from './NotFoundRoute';
import type { RouteHandle } from './pageTitle';
import Root from './Root';
import RouteErrorPage from './RouteErrorPage';
import Shell from './Shell';

/*
 * The route table: every route of SPEC §2. One lazy import per area folder (web/src/features/<area>/);
 * an area's index.tsx receives `page` and reads the path parameters with useParams().
 * A team building an area edits its own folder (and at most its one line below).
 */
const Account = area(() => import('../features/account'));
const Datasets = area(() => import('../features/datasets'));
const Visualization = area(() => import('../features/visualization'));
const Preprocessing = area(() => import('../features/preprocessing'));
const Training = area(() => import('../features/training'));
const Prediction = area(() => import('../features/prediction'));
const TimeSeries = area(() => import('../features/timeseries'));
const Optimization = area(() => import('../features/optimization'));
const OptimalDesign = area(() => import('../features/optimal-design'));
const StatisticalAnalysis = area(() => import('../features/statistical-analysis'));
const Members = area(() => import('../features/members'));
const Profile = area(() => import('../features/profile'));
const Platform = area(() => import('../features/platform'));
const Billing = area(() => import('../features/billing'));
const Audit = area(() => import('../features/audit'));
const Operations = area(() => import('../features/operations'));
const Installation = area(() => import('../features/installation'));

type AreaComponent = ReturnType<typeof area>;

function page(path: string, Area: AreaComponent, pageKey: string, title: string): RouteObject {
  const handle: RouteHandle = { title };
  return { path, element: <Area page={pageKey} />, handle };
}

export const signedInRoutes: RouteObject[] = [
  { index: true, element: <Navigate to="/dataset" replace /> },

  // Dataset
  page('dataset', Datasets, 'list', 'pages.datasets'),
  page('dataset/register', Datasets, 'register', 'pages.datasetRegister'),
  page('dataset/details/:dataset_id/:data_type', Datasets, 'details', 'pages.datasetDetails'),

  // Visualization and pre-processing
  page('visualization', Visualization, 'list', 'nav.visualization'),
  page('visualization/details/:dataset_id', Visualization, 'details', 'nav.visualization'),
  page('pre-processing', Preprocessing, 'list', 'nav.preprocessing'),
  page('pre-processing/details/:dataset_id', Preprocessing, 'details', 'nav.preprocessing'),

  // Training: list, project registration per training type
  page('training', Training, 'list', 'nav.training'),
  page('training/analysis/register/:dataset_id', Training, 'register:analysis', 'nav.training'),
  page('training/classification/register/:dataset_id', Training, 'register:classification', 'nav.training'),
  page('training/regression/register/:dataset_id', Training, 'register:regression', 'nav.training'),
  page('training/time_series_anomaly_detection_supervised/register/:dataset_id', TimeSeries, 'register:time_series_anomaly_detection_supervised', 'nav.training'),
  page('training/time_series_anomaly_detection_unsupervised/register/:dataset_id', TimeSeries, 'register:time_series_anomaly_detection_unsupervised', 'nav.training'),
  page('training/soft_sensor/register/:dataset_id', Training, 'register:soft_sensor', 'nav.training'),
  page('training/dimensional_compression/register/:dataset_id', Training, 'register:dimensional_compression', 'nav.training'),
  page('training/discriminant_analysis/register/:dataset_id', Training, 'register:discriminant_analysis', 'nav.training'),
  page('training/clustering/register/:dataset_id', Training, 'register:clustering', 'nav.training'),
  // Training: project details
  page('training/details/:project_id', Training, 'details', 'nav.training'),
  page('training/regress/details/:project_id', Training, 'details:regression', 'nav.training'),
  page('training/soft-sensor/details/:project_id', Training, 'details:soft_sensor', 'nav.training'),
  page('training/time-series/details/:project_id', TimeSeries, 'details', 'nav.training'),
  page('training/dimensional-compression/details/:project_id', Training, 'details:dimensional_compression', 'nav.training'),
  page('training/discriminant-analysis/details/:project_id', Training, 'details:discriminant_analysis', 'nav.training'),
  page('training/clustering/details/:project_id', Training, 'details:clustering', 'nav.training'),
  // Training: results and reports
  // One path for the threshold pages of image and time-series models: the training area hands it on by project type.
  page('training/result/threshold/:project_id/:model_key', Training, 'result:threshold', 'nav.training'),
  page('training/result/analysis/details/:project_id/:model_key', Training, 'result:analysis', 'nav.training'),
  page('training/result/classification/details/:project_id/:model_key', Training, 'result:classification', 'nav.training'),
  page('training/result/report/:project_id/:model_key', Training, 'report', 'nav.training'),
  page('training/regress/result/report/:project_id/:model', Training, 'report:regression', 'nav.training'),
  page('training/regression/result/:project_id', Training, 'result:regression', 'nav.training'),
  page('training/time-series/result/:project_id', TimeSeries, 'result', 'nav.training'),
  page('training/time-series/report/:project_id/:model', TimeSeries, 'report', 'nav.training'),
  page('training/soft-sensor/report/:project_id/:model', Training, 'report:soft_sensor', 'nav.training'),
  page('training/dimensional_compression/result/:project_id', Training, 'result:dimensional_compression', 'nav.training'),
  page('training/dimensional-compression/report/:project_id/:model', Training, 'report:dimensional_compression', 'nav.training'),
  page('training/discriminant-analysis/result/:project_id', Training, 'result:discriminant_analysis', 'nav.training'),
  page('training/discriminant-analysis/report/:project_id/:model', Training, 'report:discriminant_analysis', 'nav.training'),
  page('training/clustering/report/:project_id/:model', Training, 'report:clustering', 'nav.training'),
  page('training/classification/images', Training, 'classification:images', 'nav.training'),
  page('training/classification/class', Training, 'classification:class', 'nav.training'),
  // From a model: the optimisation and inference wizards (owned by those areas)
  page('training/optimization/register/:project_id/:model_key', Optimization, 'register:from-model', 'nav.optimization'),
  page('training/prediction/register/:project_id/:model_key', Prediction, 'register:from-model', 'nav.prediction'),

  // Prediction
  page('prediction', Prediction, 'list', 'nav.prediction'),
  page('prediction/register/:project_id/:prediction_type', Prediction, 'register', 'nav.prediction'),
  page('prediction/report/:report_type/:prediction_id', Prediction, 'report', 'nav.prediction'),
  page('prediction/regression/report/:prediction_id', Prediction, 'report:regression', 'nav.prediction'),
  page('prediction/time-series/report/:prediction_id', TimeSeries, 'prediction-report', 'nav.prediction'),
  page('prediction/discriminant-analysis/report/:prediction_id', Prediction, 'report:discriminant_analysis', 'nav.prediction'),
  page('prediction/clustering/report/:prediction_id', Prediction, 'report:clustering', 'nav.prediction'),

  // Optimization
  page('optimization', Optimization, 'list', 'nav.optimization'),
  page('optimization/regress/register', Optimization, 'register', 'nav.optimization'),
  page('optimization/regress/details/:project_id', Optimization, 'details', 'nav.optimization'),
  page('optimization/regress/result/:project_id/:algorithm', Optimization, 'result', 'nav.optimization'),
  page('optimization/regress/visualization/:project_id/:algorithm', Optimization, 'visualization', 'nav.optimization'),

  // Optimal design (design of experiments)
  page('optimal-design', OptimalDesign, 'list', 'nav.optimalDesign'),
  page('optimal-design/register', OptimalDesign, 'register', 'nav.optimalDesign'),
  page('optimal-design/details/:project_id', OptimalDesign, 'details', 'nav.optimalDesign'),
  page('optimal-design/details/:project_id/:model', OptimalDesign, 'details:model', 'nav.optimalDesign'),

  // Statistics
  page('statistical-analysis', StatisticalAnalysis, 'list', 'nav.statistics'),
  page('statistical-analysis/register/:dataset_id', StatisticalAnalysis, 'register', 'nav.statistics'),
  page('statistical-analysis/details/:project_id', StatisticalAnalysis, 'details', 'nav.statistics'),

  // Other
  page('users', Members, 'list', 'pages.members'),
  page('users/:member_id', Members, 'details', 'pages.member'),
  page('profile', Profile, 'profile', 'pages.profile'),
  page('audit', Audit, 'list', 'pages.audit'),
  // Account (issue 6): onboarding and the platform administrators' identity review
  page('complete-registration', Account, 'complete-registration', 'account.completeRegistration'),
  page('admin/identity', Account, 'admin-identity', 'adminIdentity.title'),
  // Hosted model APIs (issue 13): the projects list of SPEC §2 'Other', a project, publishing, the admins' review
  page('platform', Platform, 'list', 'nav.platform'),
  page('platform/new', Platform, 'new', 'nav.platform'),
  page('platform/details/:id', Platform, 'details', 'nav.platform'),
  page('platform/edit/:id', Platform, 'edit', 'nav.platform'),
  page('admin/platform', Platform, 'admin', 'nav.platform'),
  // Invoices and payments (issue 14): list, detail, payment steps, wallet, the admins' confirmations
  page('invoices', Billing, 'list', 'nav.invoices'),
  page('invoices/:invoice_id', Billing, 'details', 'nav.invoices'),
  page('invoices/:invoice_id/payment', Billing, 'payment', 'nav.invoices'),
  page('wallet', Billing, 'wallet', 'nav.invoices'),
  page('admin/billing', Billing, 'admin', 'nav.invoices'),
  // Operations (issue 16): the worker pool, the queue and recent failures, for platform administrators
  page('admin/operations', Operations, 'operations', 'pages.operations'),
  page('admin/settings', Installation, 'settings', 'pages.platformSettings'),
];

/** Account screens reached from mailed links or the login form (issue 6). */
function accountRoute(path: string, title: string, guestOnly: boolean): RouteObject {
  const screen = <Account page={path} />;
  return { path, element: guestOnly ? <GuestOnly>{screen}</GuestOnly> : screen, handle: { title } satisfies RouteHandle, errorElement: <RouteErrorPage /> };
}

export const routes: RouteObject[] = [
  {
    element: <Root />,
    errorElement: <RouteErrorPage />,
    children: [
      accountRoute('login', 'pages.login', true),
      accountRoute('register', 'pages.register', true),
      accountRoute('forgot-password', 'account.forgotTitle', true),
      accountRoute('reset-password', 'account.resetTitle', false),
      accountRoute('verify-email', 'account.verifyTitle', false),
      accountRoute('accept-invitation', 'account.acceptTitle', false),
      { path: '404', element: <NotFoundRoute />, handle: { title: 'notFound.title' } satisfies RouteHandle },
      {
        element: (
          <RequireAuth>
            <Shell />
          </RequireAuth>
        ),
        // A pathless child catches page errors (chunk timeouts…) inside the shell.
        children: [{ errorElement: <RouteErrorPage />, children: signedInRoutes }],
      },
      { path: '*', element: <NotFoundRoute />, handle: { title: 'notFound.title' } satisfies RouteHandle },
    ],
  },
];

registerRoutes(routes);
