/*
 * A lean MQTT connection-cycle load generator for examples/bench/connect-storm.sh (mode tcp-max):
 * CONCURRENCY loops of TCP connect, CONNECT (MQTT 3.1.1, clean session, a unique client id),
 * CONNACK, DISCONNECT, close, on one thread with epoll. It exists because the Java client
 * (MqttBench connect) spends about 70 us of its core per connection and so cannot offer more than
 * about 14,000 connections a second: below what either broker can take on one core, which leaves
 * both brokers partly idle and charges each its sleeps and wake-ups. This one costs a fraction of
 * that, so a broker pinned to one core is saturated and its figure is its own work per connection.
 *   cc -O2 -o connect-storm connect-storm.c
 *   connect-storm PORT SECONDS CONCURRENCY    -> prints "<connections> <seconds>"
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { CONNECTING, AWAIT_CONNACK };

static struct sockaddr_in target;
static int epfd;
static unsigned long next_id;
static int *state; /* per fd */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static void start_one(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *) &target, sizeof target) < 0 && errno != EINPROGRESS) fail("connect");
    state[fd] = CONNECTING;
    struct epoll_event ev = {.events = EPOLLOUT, .data.fd = fd};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) fail("epoll_ctl add");
}

/* CONNECT: protocol "MQTT" level 4, clean session, keep-alive 60 s, client id "c<number>". */
static void send_connect(int fd) {
    char id[24];
    int idlen = snprintf(id, sizeof id, "c%lu", next_id++);
    unsigned char p[64];
    int n = 0;
    p[n++] = 0x10;
    p[n++] = (unsigned char) (10 + 2 + idlen);
    memcpy(p + n, "\0\4MQTT\4\2\0\74", 10);
    n += 10;
    p[n++] = 0;
    p[n++] = (unsigned char) idlen;
    memcpy(p + n, id, idlen);
    n += idlen;
    if (write(fd, p, n) != n) fail("write CONNECT");
    state[fd] = AWAIT_CONNACK;
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) < 0) fail("epoll_ctl mod");
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: connect-storm PORT SECONDS CONCURRENCY\n");
        return 2;
    }
    target.sin_family = AF_INET;
    target.sin_port = htons((unsigned short) atoi(argv[1]));
    target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    double seconds = atof(argv[2]);
    int concurrency = atoi(argv[3]);
    state = calloc(65536, sizeof *state);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) fail("epoll_create1");
    for (int i = 0; i < concurrency; i++) start_one();
    unsigned long done = 0;
    double start = now(), end = start + seconds;
    struct epoll_event events[256];
    static const unsigned char disconnect[] = {0xE0, 0};
    for (double t = start; t < end; t = now()) {
        int n = epoll_wait(epfd, events, 256, 100);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (state[fd] == CONNECTING) {
                int err = 0;
                socklen_t len = sizeof err;
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
                if (err) { errno = err; fail("connect"); }
                send_connect(fd);
                continue;
            }
            unsigned char ack[4];
            ssize_t r = read(fd, ack, sizeof ack);
            if (r != 4 || ack[0] != 0x20 || ack[3] != 0) {
                fprintf(stderr, "bad CONNACK (%zd bytes)\n", r);
                return 1;
            }
            if (write(fd, disconnect, 2) != 2) fail("write DISCONNECT");
            close(fd); /* also leaves the epoll set */
            done++;
            start_one();
        }
    }
    printf("%lu %.3f\n", done, now() - start);
    return 0;
}
