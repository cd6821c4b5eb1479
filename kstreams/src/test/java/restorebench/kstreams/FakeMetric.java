package restorebench.kstreams;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/** A metric for the samplers' tests: its value, or the exception reading it throws. */
final class FakeMetric implements Metric {
    private final MetricName name;
    private final Object value;

    FakeMetric(MetricName name, Object value) {
        this.name = name;
        this.value = value;
    }

    @Override
    public MetricName metricName() {
        return name;
    }

    @Override
    public Object metricValue() {
        if (value instanceof RuntimeException) {
            throw (RuntimeException) value;
        }
        return value;
    }
}
