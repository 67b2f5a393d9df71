package io.sluice.broker.routing;

/** A subscriber's subscription as stored in the subscription tree; keyed by subscriber. */
record Route(Subscriber subscriber, Subscription subscription) {
}
