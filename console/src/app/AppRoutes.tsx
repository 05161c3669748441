import { Route, Switch } from 'wouter';
import { RequireSession } from '../features/auth/components/RequireSession';
import { SetPasswordRoute } from '../features/auth/routes/SetPasswordRoute';
import { SignInRoute } from '../features/auth/routes/SignInRoute';
import { OverviewRoute } from '../features/overview/routes/OverviewRoute';
import { RecordRoute } from '../features/record/routes/RecordRoute';
import { ReviewQueueRoute } from '../features/review-queue/routes/ReviewQueueRoute';
import { Layout } from './Layout';
import { NotFoundRoute } from './NotFoundRoute';

export function AppRoutes() {
  return (
    <Switch>
      <Route path="/sign-in" component={SignInRoute} />
      <Route path="/set-password" component={SetPasswordRoute} />
      <Route>
        <RequireSession>
          <Layout>
            <Switch>
              <Route path="/" component={OverviewRoute} />
              <Route path="/queue" component={ReviewQueueRoute} />
              <Route path="/records/:id">{(params) => <RecordRoute key={params.id} id={params.id} />}</Route>
              <Route component={NotFoundRoute} />
            </Switch>
          </Layout>
        </RequireSession>
      </Route>
    </Switch>
  );
}
