package io.sluice.examples.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Draws a soak run's {@code samples.csv} as a PNG with two panels over time: the broker's RSS and
 * used heap, and the throughput (acknowledged publishes and deliveries to the persistent sessions,
 * per second); a dashed line marks each {@code kill -9}. No plotting library is needed.
 *
 * <pre>SoakPlot samples.csv soak.png</pre>
 */
public final class SoakPlot {
    private static final int WIDTH = 1000;
    private static final int PANEL = 320;
    private static final int MARGIN = 70;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728)};

    private SoakPlot() {
    }

    public static void main(String[] args) throws IOException {
        List<String> lines = Files.readAllLines(Path.of(args[0]));
        List<double[]> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            rows.add(Arrays.stream(line.split(",")).mapToDouble(Double::parseDouble).toArray());
        }
        BufferedImage image = new BufferedImage(WIDTH, 2 * PANEL + 2 * MARGIN, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        double[] minutes = column(rows, 0, 1 / 60.0);
        panel(g, MARGIN / 2, "broker memory (MiB)", minutes, rows,
                List.of(column(rows, 2, 1 / 1024.0), column(rows, 3, 1 / 1024.0)), List.of("RSS", "heap used"));
        panel(g, MARGIN + PANEL + MARGIN / 2, "throughput (messages/s)", minutes, rows,
                List.of(rate(rows, 5), rate(rows, 7)), List.of("QoS 1/2 acknowledged", "delivered to persistent sessions"));
        ImageIO.write(image, "png", Path.of(args[1]).toFile());
    }

    private static void panel(Graphics2D g, int top, String title, double[] x, List<double[]> rows,
                              List<double[]> series, List<String> names) {
        int left = MARGIN;
        int right = WIDTH - 20;
        int bottom = top + PANEL - 30;
        double xMax = Math.max(1, x[x.length - 1]);
        double yMax = 1;
        for (double[] s : series) {
            for (double v : s) {
                yMax = Math.max(yMax, v);
            }
        }
        yMax *= 1.1;
        g.setColor(Color.BLACK);
        g.drawString(title, left, top + 12);
        g.drawRect(left, top + 20, right - left, bottom - top - 20);
        for (int i = 0; i <= 5; i++) {
            int y = bottom - (bottom - top - 20) * i / 5;
            g.drawString(String.format(Locale.ROOT, "%.0f", yMax * i / 5), 5, y + 4);
            int xx = left + (right - left) * i / 5;
            g.drawString(String.format(Locale.ROOT, "%.0f min", xMax * i / 5), i == 5 ? xx - 45 : xx - 15, bottom + 15);
        }
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {4, 4}, 0));
        for (int i = 1; i < rows.size(); i++) {
            if (rows.get(i)[1] != rows.get(i - 1)[1]) {
                int xx = left + (int) ((right - left) * x[i] / xMax);
                g.drawLine(xx, top + 20, xx, bottom);
            }
        }
        g.setStroke(new BasicStroke(1.5f));
        for (int s = 0; s < series.size(); s++) {
            g.setColor(COLORS[s]);
            double[] y = series.get(s);
            for (int i = 1; i < y.length; i++) {
                if (y[i] < 0 || y[i - 1] < 0) {
                    continue; // not sampled (broker restarting)
                }
                g.drawLine(left + (int) ((right - left) * x[i - 1] / xMax), bottom - (int) ((bottom - top - 20) * y[i - 1] / yMax),
                        left + (int) ((right - left) * x[i] / xMax), bottom - (int) ((bottom - top - 20) * y[i] / yMax));
            }
            g.drawString(names.get(s), right - 260, top + 40 + 15 * s);
        }
    }

    private static double[] column(List<double[]> rows, int index, double scale) {
        return rows.stream().mapToDouble(r -> r[index] < 0 ? -1 : r[index] * scale).toArray();
    }

    /** Per-second rate of a cumulative counter between consecutive samples. */
    private static double[] rate(List<double[]> rows, int index) {
        double[] rate = new double[rows.size()];
        for (int i = 1; i < rows.size(); i++) {
            double seconds = rows.get(i)[0] - rows.get(i - 1)[0];
            rate[i] = seconds <= 0 ? 0 : (rows.get(i)[index] - rows.get(i - 1)[index]) / seconds;
        }
        return rate;
    }
}
