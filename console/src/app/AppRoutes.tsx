import { lazy, Suspense } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { Loading } from '../components/Loading';
import { PageErrorBoundary } from '../components/PageErrorBoundary';
import { RequireSession } from '../features/auth/components/RequireSession';
import { SetPasswordRoute } from '../features/auth/routes/SetPasswordRoute';
import { SignInRoute } from '../features/auth/routes/SignInRoute';
import { OverviewRoute } from '../features/overview/routes/OverviewRoute';
import { RecordRoute } from '../features/record/routes/RecordRoute';
import { ReviewQueueRoute } from '../features/review-queue/routes/ReviewQueueRoute';
import { Layout } from './Layout';
import { NotFoundRoute } from './NotFoundRoute';

// Screens few users open on most days load when first opened (the CSV reader with the fields screen): the first
// load stays small.
const FieldsRoute = lazy(() =>
  import('../features/fields/routes/FieldsRoute').then((m) => ({ default: m.FieldsRoute })),
);
const FieldRoute = lazy(() => import('../features/fields/routes/FieldRoute').then((m) => ({ default: m.FieldRoute })));
const ConsentRoute = lazy(() =>
  import('../features/oauth/routes/ConsentRoute').then((m) => ({ default: m.ConsentRoute })),
);
const IntegrationsRoute = lazy(() =>
  import('../features/integrations/routes/IntegrationsRoute').then((m) => ({ default: m.IntegrationsRoute })),
);
const ConnectedAppsRoute = lazy(() =>
  import('../features/connected-apps/routes/ConnectedAppsRoute').then((m) => ({ default: m.ConnectedAppsRoute })),
);
const WebhooksRoute = lazy(() =>
  import('../features/webhooks/routes/WebhooksRoute').then((m) => ({ default: m.WebhooksRoute })),
);
const WebhookRoute = lazy(() =>
  import('../features/webhooks/routes/WebhookRoute').then((m) => ({ default: m.WebhookRoute })),
);
const CodingRulesRoute = lazy(() =>
  import('../features/coding-rules/routes/CodingRulesRoute').then((m) => ({ default: m.CodingRulesRoute })),
);
const NewRuleRoute = lazy(() =>
  import('../features/coding-rules/routes/NewRuleRoute').then((m) => ({ default: m.NewRuleRoute })),
);
const RuleRoute = lazy(() =>
  import('../features/coding-rules/routes/RuleRoute').then((m) => ({ default: m.RuleRoute })),
);
const CodingGridRoute = lazy(() =>
  import('../features/coding-grid/routes/CodingGridRoute').then((m) => ({ default: m.CodingGridRoute })),
);
const ExportsRoute = lazy(() =>
  import('../features/exports/routes/ExportsRoute').then((m) => ({ default: m.ExportsRoute })),
);
const SettingsRoute = lazy(() =>
  import('../features/settings/routes/SettingsRoute').then((m) => ({ default: m.SettingsRoute })),
);
const AuditRoute = lazy(() => import('../features/audit/routes/AuditRoute').then((m) => ({ default: m.AuditRoute })));
// Two-step sign-in's set-up draws a QR code (the qrcode package): loaded with the pages that need it.
const TwoStepRoute = lazy(() =>
  import('../features/auth/routes/TwoStepRoute').then((m) => ({ default: m.TwoStepRoute })),
);
const SetUpTwoStepRoute = lazy(() =>
  import('../features/auth/routes/SetUpTwoStepRoute').then((m) => ({ default: m.SetUpTwoStepRoute })),
);
const UsersRoute = lazy(() => import('../features/users/routes/UsersRoute').then((m) => ({ default: m.UsersRoute })));
const ApiClientsRoute = lazy(() =>
  import('../features/api-clients/routes/ApiClientsRoute').then((m) => ({ default: m.ApiClientsRoute })),
);

export function AppRoutes() {
  const [location] = useLocation();
  return (
    <Switch>
      <Route path="/sign-in" component={SignInRoute} />
      <Route path="/set-password" component={SetPasswordRoute} />
      <Route path="/two-step/set-up">
        <Suspense fallback={<Loading label="Loading the page…" />}>
          <SetUpTwoStepRoute />
        </Suspense>
      </Route>
      <Route>
        <RequireSession>
          <Layout>
            <PageErrorBoundary key={location}>
              <Suspense fallback={<Loading label="Loading the page…" />}>
                <Switch>
                  <Route path="/" component={OverviewRoute} />
                  <Route path="/queue" component={ReviewQueueRoute} />
                  <Route path="/coding-grid" component={CodingGridRoute} />
                  <Route path="/exports" component={ExportsRoute} />
                  <Route path="/records/:id">{(params) => <RecordRoute key={params.id} id={params.id} />}</Route>
                  <Route path="/fields" component={FieldsRoute} />
                  <Route path="/fields/:id">{(params) => <FieldRoute key={params.id} id={params.id} />}</Route>
                  <Route path="/coding-rules" component={CodingRulesRoute} />
                  <Route path="/coding-rules/new" component={NewRuleRoute} />
                  <Route path="/coding-rules/:id">{(params) => <RuleRoute key={params.id} id={params.id} />}</Route>
                  <Route path="/api-clients" component={ApiClientsRoute} />
                  <Route path="/users" component={UsersRoute} />
                  <Route path="/two-step" component={TwoStepRoute} />
                  <Route path="/connected-apps" component={ConnectedAppsRoute} />
                  <Route path="/integrations" component={IntegrationsRoute} />
                  <Route path="/webhooks" component={WebhooksRoute} />
                  <Route path="/webhooks/:id">{(params) => <WebhookRoute key={params.id} id={params.id} />}</Route>
                  <Route path="/settings" component={SettingsRoute} />
                  <Route path="/audit" component={AuditRoute} />
                  <Route path="/oauth/authorize" component={ConsentRoute} />
                  <Route component={NotFoundRoute} />
                </Switch>
              </Suspense>
            </PageErrorBoundary>
          </Layout>
        </RequireSession>
      </Route>
    </Switch>
  );
}
