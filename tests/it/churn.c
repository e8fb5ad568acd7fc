#include <fcntl.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
    struct timespec linger = { 0, 1000000 };
    time_t end = time(0) + 10;
    int beat = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
    while (time(0) <= end) {
        setsid();
        if (write(beat, ".", 1) != 1 || fork() > 0) {
            nanosleep(&linger, 0);
            break;
        }
    }
    _exit(0);
}
