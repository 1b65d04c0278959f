// SPDX-License-Identifier: MIT
#include "interrupt.h"

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace gatehouse::cli {

namespace {

int s_pipe[2] = {-1, -1};

void onSignal(int signal)
{
    const unsigned char byte = static_cast<unsigned char>(signal);
    [[maybe_unused]] const ssize_t n = ::write(s_pipe[1], &byte, 1);
}

} // namespace

Interrupt::Interrupt(QObject *parent)
    : QObject(parent)
{
    if (s_pipe[0] < 0) {
        if (::pipe(s_pipe) != 0)
            return; // without a pipe the default action (exit 130) stays
        ::fcntl(s_pipe[1], F_SETFL, O_NONBLOCK);
    }
    m_notifier = std::make_unique<QSocketNotifier>(s_pipe[0], QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, [this] {
        unsigned char byte = 0;
        if (::read(s_pipe[0], &byte, 1) == 1)
            Q_EMIT interrupted(int(byte));
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

Interrupt::~Interrupt()
{
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
}

} // namespace gatehouse::cli
