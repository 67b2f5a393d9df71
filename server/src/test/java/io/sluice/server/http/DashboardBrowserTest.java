package io.sluice.server.http;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * which {@code .ci/run} installs): log in, watch the live plot move while a client publishes, kick
 * a client, plot a captured JSON field over a range. Each page is photographed into
 * {@code target/dashboard-screenshots/}; with {@code -Dsluice.docs.images=<folder>} the pictures are
 * also copied there (how {@code docs/images/dashboard-*.png} are made).
 */
class DashboardBrowserTest extends ApiServerTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** One browser for all tests: starting Chromium is the slow part. Each test's server has its own origin, so its own log-in. */
    private static WebDriver browser;
    private static WebDriverWait wait;


    @BeforeAll
    static void startBrowser() {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "the dashboard tests need Debian's chromium and chromium-driver (" + CHROMIUM + ", " + CHROMEDRIVER
                        + "); .ci/run installs them");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1000");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().window().setSize(new Dimension(1400, 1000));
        wait = new WebDriverWait(browser, WAIT);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @BeforeEach
    void start() throws Exception {
        api = new ApiServer(dir, bridgeToNowhere("fleet/#", "") + """
                http_server { port = 0, username = admin, password = "dash-pw" }
                exchange_client.mq1 {
                  exchange_url = "tcp://127.0.0.1:*"
                  exchange { name = "telemetry", topic = "fleet/#", streamType = 0, flush_interval = 100ms }
                }
                """);
    }

    private void logIn() throws Exception {
        browser.get(api.base() + "/#overview");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-user")));
        browser.findElement(By.id("login-user")).sendKeys("admin");
        browser.findElement(By.id("login-password")).sendKeys("wrong");
        browser.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "Wrong"));
        screenshot("login");
        browser.findElement(By.id("login-user")).clear();
        browser.findElement(By.id("login-user")).sendKeys("admin");
        browser.findElement(By.id("login-password")).clear();
        browser.findElement(By.id("login-password")).sendKeys("dash-pw");
        browser.findElement(By.id("login-submit")).click();
        awaitPage("overview");
    }

    private void open(String page) {
        browser.get(api.base() + "/#" + page);
        awaitPage(page);
    }

    private void awaitPage(String page) {
        wait.until(d -> page.equals(d.findElement(By.tagName("body")).getAttribute("data-ready")));
    }

    private void screenshot(String page) throws Exception {
        byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
        Path folder = Path.of("target", "dashboard-screenshots");
        Files.createDirectories(folder);
        Path file = folder.resolve("dashboard-" + page + ".png");
        Files.write(file, png);
        String docs = System.getProperty("sluice.docs.images");
        if (docs != null && !docs.isBlank()) {
            Files.createDirectories(Path.of(docs));
            Files.copy(file, Path.of(docs).resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void theOverviewPlotMovesWhileAClientPublishes() throws Exception {
        logIn();
        WebElement plot = browser.findElement(By.id("ov-plot-messages"));
        wait.until(d -> plot.getAttribute("data-points") != null);
        assertEquals("0", plot.getAttribute("data-max"), "nothing published yet");
        byte[] before = plot.getScreenshotAs(OutputType.BYTES);

        Mqtt5BlockingClient publisher = api.mqtt("plotter");
        AtomicBoolean publishing = new AtomicBoolean(true);
        Thread load = new Thread(() -> {
            while (publishing.get()) {
                publisher.publishWith().topic("plant/load").payload("x".getBytes()).send();
                try {
                    Thread.sleep(10); // a steady trickle, not a benchmark
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "publisher");
        load.start();
        try {
            wait.until(d -> Double.parseDouble(plot.getAttribute("data-max")) > 0);
        } finally {
            publishing.set(false);
            load.join();
            publisher.disconnect();
        }
        assertFalse(Arrays.equals(before, plot.getScreenshotAs(OutputType.BYTES)), "the drawn plot changed");
        screenshot("overview");
    }

    @Test
    void aClientFoundBySearchIsKickedWithDisconnect98() throws Exception {
        ApiServer.KickedClient victim = api.mqttToKick("press-7");
        victim.client().subscribeWith().topicFilter("plant/+/cmd").qos(MqttQos.AT_LEAST_ONCE).send();
        api.mqtt("other").publishWith().topic("plant/press-7/state").payload("idle".getBytes()).retain(true)
                .qos(MqttQos.AT_LEAST_ONCE).send();
        logIn();

        open("subscriptions");
        wait.until(d -> !d.findElements(By.cssSelector("#topic-tree li[data-path='plant/press-7/state']")).isEmpty());
        screenshot("subscriptions");

        open("clients");
        browser.findElement(By.id("clients-search")).sendKeys("press");
        By row = By.cssSelector("tr[data-client='press-7']");
        wait.until(d -> d.findElements(By.cssSelector("#clients-rows tr")).size() == 1
                && !d.findElements(row).isEmpty());
        screenshot("clients");
        // The table is redrawn every two seconds, so the button found may be replaced before the click lands.
        wait.ignoring(StaleElementReferenceException.class)
                .until(d -> {
                    d.findElement(row).findElement(By.cssSelector("button.kick")).click();
                    return true;
                });
        wait.until(ExpectedConditions.alertIsPresent()).accept();

        victim.awaitKicked();
    }

    @Test
    void aCapturedJsonFieldIsPlottedOverARange() throws Exception {
        Mqtt5BlockingClient vehicle = api.mqtt("vehicle");
        for (int i = 0; i < 60; i++) {
            String json = "{\"vin\":\"WVW1\",\"speed\":{\"kmh\":" + (40 + i % 20) + "},\"rpm\":" + (1500 + 10 * i) + "}";
            vehicle.publishWith().topic("fleet/WVW1/telemetry").qos(MqttQos.AT_LEAST_ONCE)
                    .payload(json.getBytes(StandardCharsets.UTF_8)).send();
        }
        logIn();
        open("exchanges");
        wait.until(d -> !d.findElements(By.cssSelector("tr[data-exchange='telemetry']")).isEmpty());
        screenshot("exchanges");

        open("explorer");
        wait.until(d -> new Select(d.findElement(By.id("ex-exchange"))).getOptions().size() == 1);
        new Select(browser.findElement(By.id("ex-range"))).selectByValue("900000");
        browser.findElement(By.id("ex-load")).click();
        wait.until(d -> new Select(d.findElement(By.id("ex-field"))).getOptions().size() == 2);
        new Select(browser.findElement(By.id("ex-field"))).selectByValue("speed.kmh");
        WebElement plot = browser.findElement(By.id("ex-field-plot"));
        wait.until(d -> "speed.kmh".equals(plot.getAttribute("data-field")) && "60".equals(plot.getAttribute("data-points")));
        assertEquals("59.0", String.valueOf(Double.parseDouble(plot.getAttribute("data-max"))));
        assertEquals(60, browser.findElements(By.cssSelector("#ex-rows tr")).size());
        screenshot("explorer");

        open("bridges");
        By cloud = By.cssSelector("tr[data-bridge='cloud'] td:nth-child(5)");
        wait.ignoring(StaleElementReferenceException.class)
                .until(d -> "60".equals(d.findElement(cloud).getText()));
        screenshot("bridges");
    }
}
