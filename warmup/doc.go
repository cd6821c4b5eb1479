// Package warmup predicts the warmup-assignment time of a Kafka Streams
// scale-out without a broker: how long, after instances are added, until
// the assignment is balanced and every task runs on its final owner.
//
// Under the classic group protocol Kafka Streams 4.4 assigns with the
// HighAvailabilityTaskAssignor (KIP-441). Each rebalance it computes a
// balanced target (stateful active tasks round-robin over the clients
// sorted by process id, ignoring history; standbys on the least-loaded
// clients), then keeps every active whose target client is not caught up
// (lag above acceptable.recovery.lag) on a caught-up client and gives the
// target a warmup replica, encoded as a standby, while the group-wide
// budget max.warmup.replicas of that rebalance lasts. When any task still
// has to move, the leader schedules a probing rebalance
// probing.rebalance.interval.ms later; a warmup within the acceptable lag
// at that rebalance makes its client caught up and the task moves there.
// Simulate replays those rounds: assignment by the same rules
// (hataAssign), then restores and warmups progressing at the measured
// restore rate per stream thread between rebalances, shared by the tasks
// one thread restores, while the changelogs grow at the write rate.
//
// Under the streams group protocol (KIP-1071) the 4.4 broker's sticky
// assignor has no warmups: tasks move at once and their new owners restore
// them from scratch; Simulate models that too (Protocol "streams").
//
// Every output is a prediction and says so (Prediction.Label), carrying the
// inputs it was made from. The process-id order decides which tasks must
// move (a newcomer's random UUID can land anywhere in the order); when it
// is not known the prediction samples random orders and reports the median
// with the spread.
package warmup
